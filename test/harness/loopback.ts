/** A test HTTP server's start and end on this machine only (127.0.0.1, a port the system picks). */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on 127.0.0.1 at `port` (default a free one); resolves with the server's origin, `http://127.0.0.1:<port>`. */
export async function listenOnLoopback(server: Server, port = 0): Promise<string> {
	server.listen(port, '127.0.0.1');
	await once(server, 'listening');
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server, ending its open connections first (close() alone waits for idle keep-alive ones). */
export async function closeServer(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}
