// The address n8n's webhooks are served at in the model: one URL in front of one or two n8n processes, as a load
// balancer in front of queue mode's webhook processes. The address outlives every process (a restarted n8n serves
// the same URL); test webhooks go to main, where n8n registers them; production requests go where `routing` says.
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeServer, listenOnLoopback } from '../../harness/loopback.ts';

export type Routing = 'alternate' | 'main' | 'second';

export class FrontDoor {
	origin = '';
	routing: Routing = 'alternate';
	readonly #server: Server;
	/** The live processes' own addresses, main first. */
	readonly #targets: () => string[];
	#turn = 0;

	constructor(targets: () => string[]) {
		this.#targets = targets;
		this.#server = createServer((request, response) => void this.#forward(request, response));
	}

	async start(): Promise<void> {
		this.origin = await listenOnLoopback(this.#server);
	}

	async close(): Promise<void> {
		await closeServer(this.#server);
	}

	#target(path: string): string | undefined {
		const targets = this.#targets();
		if (targets.length < 2 || path.startsWith('/webhook-test/') || this.routing === 'main') return targets[0];
		if (this.routing === 'second') return targets[1];
		return targets[this.#turn++ % targets.length];
	}

	async #forward(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const target = this.#target(request.url ?? '/');
		const fail = () => {
			if (!response.headersSent) response.writeHead(502).end();
		};
		if (target === undefined) return fail();
		// No kept-alive connections: a process that restarted must not be reached through the old one's socket.
		const upstream = httpRequest(`${target}${request.url}`, { method: request.method, headers: request.headers, agent: false }, (answer) => {
			response.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(response);
		});
		upstream.on('error', fail);
		response.on('error', () => {}); // the service gave up waiting (an answer lost): nothing to tell it
		upstream.end(Buffer.concat(chunks));
	}
}
