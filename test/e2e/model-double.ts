// A test double of the language model only: a loopback HTTP server that speaks OpenAI's chat-completions API (plain
// and streamed, with tool calls), as n8n's OpenAI Chat Model node calls it through the credential's Base URL. The test
// scripts the model's turns one by one and reads back every request, so it can assert what the model was shown (the
// system message, the tools, each tool result and error text). n8n, the agent, the tools and the simulator are real.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ToolSpec {
	name: string;
	description: string;
	parameters: { properties?: Record<string, { type?: string; description?: string }>; required?: string[] };
}

/** One request as the model received it. */
export interface ModelRequest {
	messages: ChatMessage[];
	tools: ToolSpec[];
	/** Size of the request body in bytes. */
	bytes: number;
}

/** What the model answers on one turn: text for the customer, or calls of tools by name. */
export type ModelReply = { say: string } | { call: Array<{ tool: string; args: Record<string, unknown> }> };

/** One scripted turn: it sees the request (to read tool results) and decides the answer. */
export type ModelTurn = (request: ModelRequest) => ModelReply | Promise<ModelReply>;

export interface ModelDouble {
	/** The Base URL for n8n's OpenAI credential (`http://127.0.0.1:<port>/v1`). */
	baseUrl: string;
	/** Every chat-completions request received, oldest first. */
	requests: ModelRequest[];
	/**
	 * Sets the turns of the next conversation (dropping any left from the last, and its failures); each request takes
	 * the next. A request with no turn left answers 500 and is recorded.
	 */
	script(...turns: ModelTurn[]): void;
	/** Turns queued and not yet taken. */
	pending(): number;
	/** Errors a turn threw (an assertion inside a turn), so the test can fail with them. */
	failures: unknown[];
	close(): Promise<void>;
}

/** The text of a message, whether the client sent a string or content parts. */
export function textOf(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	return (message.content ?? []).map((part) => part.text ?? '').join('');
}

/** The tool results the model received in this request, after its last own message (the newest round of calls). */
export function latestToolResults(request: ModelRequest): string[] {
	const lastAssistant = request.messages.map((message) => message.role).lastIndexOf('assistant');
	return request.messages.slice(lastAssistant + 1).filter((message) => message.role === 'tool').map(textOf);
}

const MAX_BODY_BYTES = 5_000_000;

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request) {
		size += (chunk as Buffer).length;
		if (size > MAX_BODY_BYTES) throw new Error('request body too large');
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks).toString('utf8');
}

let callCounter = 0;

function assistantMessage(reply: ModelReply) {
	if ('say' in reply) return { role: 'assistant', content: reply.say };
	return {
		role: 'assistant',
		content: null,
		tool_calls: reply.call.map(({ tool, args }) => ({
			id: `call_${++callCounter}`,
			type: 'function',
			function: { name: tool, arguments: JSON.stringify(args) },
		})),
	};
}

function answer(response: ServerResponse, model: string, reply: ModelReply, stream: boolean) {
	const message = assistantMessage(reply);
	const finishReason = 'say' in reply ? 'stop' : 'tool_calls';
	const base = { id: `chatcmpl-${++callCounter}`, created: Math.floor(Date.now() / 1000), model };
	const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
	if (!stream) {
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(
			JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finishReason }], usage }),
		);
		return;
	}
	response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const chunk = (delta: unknown, finish: string | null) =>
		`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
	const delta =
		message.tool_calls === undefined
			? { role: 'assistant', content: message.content }
			: { role: 'assistant', tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) };
	response.write(chunk(delta, null));
	response.write(chunk({}, finishReason));
	response.end('data: [DONE]\n\n');
}

export async function startModelDouble(): Promise<ModelDouble> {
	const requests: ModelRequest[] = [];
	const turns: ModelTurn[] = [];
	const failures: unknown[] = [];

	const server = createServer((request, response) => {
		void (async () => {
			if (request.method === 'GET' && request.url?.endsWith('/models')) {
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-4.1-mini', object: 'model' }] }));
				return;
			}
			if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) {
				response.writeHead(404).end();
				return;
			}
			const text = await readBody(request);
			const body = JSON.parse(text) as {
				model?: string;
				stream?: boolean;
				messages?: ChatMessage[];
				tools?: Array<{ function: ToolSpec }>;
			};
			const received: ModelRequest = {
				messages: body.messages ?? [],
				tools: (body.tools ?? []).map((tool) => tool.function),
				bytes: Buffer.byteLength(text),
			};
			requests.push(received);
			const turn = turns.shift();
			if (!turn) {
				response.writeHead(500, { 'content-type': 'application/json' });
				response.end(JSON.stringify({ error: { message: 'model double: no scripted turn left', type: 'server_error' } }));
				return;
			}
			let reply: ModelReply;
			try {
				reply = await turn(received);
			} catch (error) {
				failures.push(error);
				reply = { say: `model double: the scripted turn failed: ${String(error)}` };
			}
			answer(response, body.model ?? 'gpt-4.1-mini', reply, body.stream === true);
		})().catch((error: unknown) => {
			failures.push(error);
			if (!response.headersSent) response.writeHead(500);
			response.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		failures,
		script: (...next) => {
			turns.splice(0, turns.length, ...next);
			failures.length = 0;
		},
		pending: () => turns.length,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
