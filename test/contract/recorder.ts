// A recording pass-through in front of the simulator, on 127.0.0.1: the nodes talk HTTP to it through their own
// transport as to the service, and it keeps what crossed the wire (query, headers, JSON body, answer) so a test can
// hold every request against the assumptions. The transport is not touched.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
	method: string;
	/** Relative to the base URL (`/bookings/0123…/cancel`). */
	path: string;
	query: Array<[string, string]>;
	/** Lower-cased names and values; Authorization is dropped here so no key is ever kept. */
	headers: Record<string, string>;
	body: unknown;
	status: number;
	answer: unknown;
}

export interface Recorder {
	/** Use as the credential's Base URL. */
	baseUrl: string;
	readonly requests: RecordedRequest[];
	close(): Promise<void>;
}

/** Hop-by-hop and framing headers: the fetch below sets its own. */
const NOT_FORWARDED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
/** At most this many requests are kept: a run that sends more is a bug worth failing on. */
const MAX_RECORDED = 5_000;

const parse = (text: string): unknown => {
	try {
		return text === '' ? undefined : (JSON.parse(text) as unknown);
	} catch {
		return text;
	}
};

/** `apiBaseUrl` is the simulator's (`http://127.0.0.1:<port>/v1`); the recorder serves the same path. */
export async function startRecorder(apiBaseUrl: string): Promise<Recorder> {
	const target = new URL(apiBaseUrl);
	const prefix = target.pathname.replace(/\/$/, '');
	const requests: RecordedRequest[] = [];
	const server = createServer((request, response) => {
		void (async () => {
			const chunks: Buffer[] = [];
			for await (const chunk of request) chunks.push(chunk as Buffer);
			const bodyText = Buffer.concat(chunks).toString('utf8');
			const url = new URL(request.url ?? '/', target);
			const headers: Record<string, string> = {};
			for (const [name, value] of Object.entries(request.headers)) {
				if (!NOT_FORWARDED.has(name) && value !== undefined) headers[name] = String(value);
			}
			const answer = await fetch(`${target.origin}${url.pathname}${url.search}`, {
				method: request.method,
				headers,
				body: bodyText === '' ? undefined : bodyText,
				redirect: 'manual',
			});
			const answerText = await answer.text();
			const { authorization: _, ...kept } = headers;
			if (requests.length >= MAX_RECORDED) throw new Error(`more than ${MAX_RECORDED} requests recorded`);
			requests.push({
				method: request.method ?? 'GET',
				path: url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname,
				query: [...url.searchParams.entries()],
				headers: kept,
				body: parse(bodyText),
				status: answer.status,
				answer: parse(answerText),
			});
			const answerHeaders: Record<string, string> = {};
			answer.headers.forEach((value, name) => {
				if (!NOT_FORWARDED.has(name) && name !== 'content-encoding') answerHeaders[name] = value;
			});
			response.writeHead(answer.status, answerHeaders).end(answerText);
		})().catch((error: unknown) => {
			response.writeHead(502).end(String(error));
		});
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}${prefix}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
