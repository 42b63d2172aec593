// The load balancer in front of n8n's webhook processes, as small as it can be: a loopback HTTP proxy that hands each
// request to the next backend in turn. Like nginx's default (`proxy_next_upstream error`), a backend that refuses the
// connection is skipped for that request; when none accepts, the answer is 502. It counts what each backend answered.
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
	/** `http://127.0.0.1:<port>/` */
	url: string;
	/** Per backend (in the order given): requests it answered, by status. */
	answered(): Array<Record<number, number>>;
	/** Requests no backend accepted (answered 502). */
	unreachable(): number;
	stop(): Promise<void>;
}

export async function startRoundRobinProxy(backends: string[], port = 0): Promise<RoundRobinProxy> {
	const answered = backends.map(() => ({}) as Record<number, number>);
	let unreachable = 0;
	let next = 0;

	const forward = (incoming: IncomingMessage, body: Buffer, response: ServerResponse, tried: number): void => {
		if (tried === backends.length) {
			unreachable += 1;
			response.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway');
			return;
		}
		const index = next;
		next = (next + 1) % backends.length;
		const target = new URL(incoming.url ?? '/', backends[index]);
		const outgoing = httpRequest(
			target,
			{ method: incoming.method, headers: { ...incoming.headers, host: target.host }, timeout: 60_000 },
			(answer) => {
				const status = answer.statusCode ?? 0;
				answered[index][status] = (answered[index][status] ?? 0) + 1;
				response.writeHead(status, answer.headers);
				answer.pipe(response);
			},
		);
		outgoing.once('error', (error: NodeJS.ErrnoException) => {
			// Only a refused connection is retried elsewhere: a request a backend may have acted on is not sent twice.
			if (error.code === 'ECONNREFUSED' && !response.headersSent) {
				forward(incoming, body, response, tried + 1);
				return;
			}
			if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' }).end('Bad Gateway');
			else response.destroy();
		});
		outgoing.end(body);
	};

	const server = createServer((incoming, response) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.once('end', () => forward(incoming, Buffer.concat(chunks), response, 0));
	});
	server.listen(port, '127.0.0.1');
	await once(server, 'listening');
	const { port: listening } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${listening}/`,
		answered: () => answered.map((counts) => ({ ...counts })),
		unreachable: () => unreachable,
		async stop() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
