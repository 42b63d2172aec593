/**
 * Just enough of Cal.com's webhook API (the v1 `/webhooks` routes its n8n trigger calls with the "v2.0 Onwards"
 * setting) for n8n's own Cal.com Trigger to activate on loopback: list, create (keeping the secret the trigger sends,
 * so the bench can sign deliveries as Cal.com does: hex HMAC-SHA256 of the raw body in `X-Cal-Signature-256`), delete.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface CalWebhook {
	id: string;
	subscriberUrl: string;
	eventTriggers: string[];
	active: boolean;
	secret: string;
}

export interface CalComStub {
	/** The credential's Host: `http://127.0.0.1:<port>/v1`. */
	host: string;
	secretFor(subscriberUrl: string): string;
	stop(): Promise<void>;
}

export function calSignature(secret: string, body: Buffer): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

export async function startCalComStub(): Promise<CalComStub> {
	const webhooks = new Map<string, CalWebhook>();
	let nextId = 1;
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.once('end', () => {
			const path = new URL(request.url ?? '/', 'http://stub').pathname;
			const answer = (status: number, body: unknown) =>
				response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
			const deleting = /^\/v1\/webhooks\/([^/]+)$/.exec(path);
			if (request.method === 'GET' && path === '/v1/webhooks') {
				answer(200, { webhooks: [...webhooks.values()] });
			} else if (request.method === 'POST' && path === '/v1/webhooks') {
				const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Omit<CalWebhook, 'id'>;
				const webhook = { ...body, id: String(nextId++) };
				webhooks.set(webhook.id, webhook);
				answer(201, { webhook: { id: webhook.id } });
			} else if (request.method === 'DELETE' && deleting) {
				webhooks.delete(deleting[1]);
				answer(200, {});
			} else {
				answer(404, { message: 'not found' });
			}
		});
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const { port } = server.address() as AddressInfo;
	return {
		host: `http://127.0.0.1:${port}/v1`,
		secretFor(subscriberUrl) {
			const webhook = [...webhooks.values()].find((candidate) => candidate.subscriberUrl === subscriberUrl);
			if (webhook === undefined) throw new Error(`Cal.com stub: no webhook for ${subscriberUrl}`);
			return webhook.secret;
		},
		async stop() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
