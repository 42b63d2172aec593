// A test server on 127.0.0.1 (tests and benchmarks reach nothing else): listening on a free port, and closed at once.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts listening on a free loopback port; returns the origin, e.g. `http://127.0.0.1:41234`. */
export async function listenOnLoopback(server: Server): Promise<string> {
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server and every connection still open on it. */
export async function closeServer(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}
