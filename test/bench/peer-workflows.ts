/**
 * The workflows our trigger is compared with in sections 4 and 7, made and activated the same way in a single n8n
 * and in queue mode: n8n's own Cal.com Trigger (the fair peer: a trigger node verifying an HMAC, subscribed at
 * cal-com-stub.ts) and n8n's plain Webhook node (no verification; in 2.41 no expression isolate per request).
 */
import { randomUUID } from 'node:crypto';

import type { N8nInstance } from '../n8n/instance.ts';
import type { CalComStub } from './cal-com-stub.ts';
import { calSignature } from './cal-com-stub.ts';
import type { Delivery } from './deliveries.ts';

/** An active workflow: its id and the path of its production webhook under `<base>/webhook/`. */
export interface ActivePeer {
	workflowId: string;
	path: string;
}

export async function activateCalComTrigger(client: N8nInstance, cal: CalComStub): Promise<ActivePeer> {
	const credential = await client.createCredential({
		name: 'Cal.com (loopback stub)',
		type: 'calApi',
		data: { apiKey: 'bench-key', host: cal.host },
	});
	const webhookId = randomUUID();
	const workflow = await client.createWorkflow({
		name: "bench: n8n's Cal.com Trigger",
		nodes: [
			{
				name: 'Cal.com Trigger',
				type: 'n8n-nodes-base.calTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId,
				parameters: { version: 2, events: ['BOOKING_CREATED'], options: {} },
				credentials: { calApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: {},
	});
	await client.activate(workflow.id);
	return { workflowId: workflow.id, path: `${webhookId}/webhook` };
}

export async function activatePlainWebhook(client: N8nInstance): Promise<ActivePeer> {
	const path = `bench-plain-${randomUUID()}`;
	const workflow = await client.createWorkflow({
		name: 'bench: plain Webhook',
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
		],
		connections: {},
	});
	await client.activate(workflow.id);
	return { workflowId: workflow.id, path };
}

/**
 * Our deliveries as Cal.com sends them: Cal.com's envelope around the same booking (`{ triggerEvent, createdAt,
 * payload }`; its trigger outputs the payload's fields), so both triggers emit and store an item of the same size,
 * signed as Cal.com signs.
 */
export function asCalComDeliveries(deliveries: Delivery[], secret: string): Delivery[] {
	return deliveries.map((delivery) => {
		const ours = JSON.parse(delivery.body.toString('utf8')) as { id: string; createdAt: string; data: { booking: object } };
		const body = Buffer.from(
			JSON.stringify({
				triggerEvent: 'BOOKING_CREATED',
				createdAt: ours.createdAt,
				payload: { eventId: ours.id, ...ours.data.booking },
			}),
		);
		return {
			...delivery,
			body,
			headers: { 'content-type': 'application/json', 'x-cal-signature-256': calSignature(secret, body) },
		};
	});
}
