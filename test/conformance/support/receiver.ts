/**
 * A webhook receiver on 127.0.0.1 that records every delivery with its raw bytes and answers as the
 * test says.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
	headers: IncomingHttpHeaders;
	rawBody: Buffer;
	body: any;
}

export interface Answer {
	status: number;
	headers?: Record<string, string>;
	/** Real milliseconds to wait before answering (to provoke the delivery timeout). */
	delayMs?: number;
}

export interface Receiver {
	url: string;
	received: ReceivedDelivery[];
	/** How to answer the n-th delivery (0-based); default 204. */
	answer: (delivery: ReceivedDelivery, index: number) => Answer;
	close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
	const receiver: Receiver = {
		url: '',
		received: [],
		answer: () => ({ status: 204 }),
		close: async () => {},
	};
	const timers = new Set<NodeJS.Timeout>();
	const server = createServer(async (request, response) => {
		const chunks: Buffer[] = [];
		for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
		const rawBody = Buffer.concat(chunks);
		const delivery: ReceivedDelivery = {
			headers: request.headers,
			rawBody,
			body: rawBody.length === 0 ? undefined : JSON.parse(rawBody.toString('utf8')),
		};
		const index = receiver.received.length;
		receiver.received.push(delivery);
		const answer = receiver.answer(delivery, index);
		const send = () => response.writeHead(answer.status, answer.headers).end();
		if (answer.delayMs === undefined) {
			send();
		} else {
			const timer = setTimeout(() => {
				timers.delete(timer);
				if (!response.destroyed) send();
			}, answer.delayMs);
			timers.add(timer);
		}
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
	receiver.close = async () => {
		for (const timer of timers) clearTimeout(timer);
		const closed = new Promise<void>((resolve) => server.close(() => resolve()));
		server.closeAllConnections();
		await closed;
	};
	return receiver;
}
