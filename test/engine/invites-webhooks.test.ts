/**
 * Invite → Create and Webhook Subscription → Create / Delete as workflows in n8n's engine against the simulator.
 */
import { describe, expect, it } from 'vitest';

import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import {
	credentialsFor,
	eventTypeId,
	pathsHolding,
	requestsTo,
	SIMULATED_NOW,
	useTestSimulator,
} from '../harness/fixtures.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true });

async function run(parameters: Record<string, unknown>) {
	const result = await runWorkflow({
		nodes: [bookingServiceNode('Node', parameters)],
		credentials: credentialsFor(sim),
	});
	return {
		...result,
		json: (result.items.Node ?? []).map((item) => item.json as Record<string, any>),
	};
}

describe('Invite → Create', () => {
	it('creates a single-use link for an invite-only event type, with the link URL', async () => {
		const phone = eventTypeId(sim, 'phone-consultation');
		const { json, error } = await run({
			resource: 'invite',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: phone },
			additionalFields: { name: 'Mei Chen', email: 'mei@example.com', expiresInDays: 3 },
		});

		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({
			eventTypeId: phone,
			name: 'Mei Chen',
			email: 'mei@example.com',
			usedAt: null,
		});
		expect(json[0].url).toMatch(/^https?:\/\//);
		expect(Date.parse(json[0].expiresAt) - Date.parse(SIMULATED_NOW)).toBeGreaterThanOrEqual(
			3 * 86_400_000 - 60_000,
		);
	});
});

describe('Webhook Subscription', () => {
	it('Create returns the subscription with its secret (only here), "*" sent alone', async () => {
		const { json, error } = await run({
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'http://127.0.0.1:9/booking-events',
			events: ['booking.created', '*'],
			additionalFields: { description: 'CRM sync' },
		});

		expect(error).toBeUndefined();
		expect(json[0]).toMatchObject({
			url: 'http://127.0.0.1:9/booking-events',
			events: ['*'],
			description: 'CRM sync',
			status: 'active',
		});
		expect(json[0].secret).toEqual(expect.any(String));
		expect(sim.control.webhooks().map((webhook) => webhook.id)).toEqual([json[0].id]);
	});

	it('Delete returns { deleted: true } and the subscription is gone; deleting it again is a clear 404', async () => {
		const created = await run({
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'http://127.0.0.1:9/x',
			events: ['*'],
		});
		const id = created.json[0].id as string;
		const deleted = await run({
			resource: 'webhookSubscription',
			operation: 'delete',
			webhookSubscriptionId: id,
		});
		const again = await run({
			resource: 'webhookSubscription',
			operation: 'delete',
			webhookSubscriptionId: id,
		});

		expect(deleted.error).toBeUndefined();
		expect(deleted.json).toEqual([{ deleted: true }]);
		expect(sim.control.webhooks()).toEqual([]);
		expect(again.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(again.error!.message).toMatch(/^Not found/);
		expect(requestsTo(sim, '/webhooks/{id}').map((request) => request.status)).toEqual([
			expect.any(Number),
			404,
		]);
	});

	it('no other operation ever outputs the secret', async () => {
		const created = await run({
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'http://127.0.0.1:9/x',
			events: ['*'],
		});
		const secret = created.json[0].secret as string;
		const others = [
			await run({ resource: 'account', operation: 'get' }),
			await run({ resource: 'booking', operation: 'getMany', returnAll: true }),
			await run({ resource: 'eventType', operation: 'getMany', returnAll: true }),
			await run({
				resource: 'webhookSubscription',
				operation: 'delete',
				webhookSubscriptionId: created.json[0].id,
			}),
		];

		for (const other of others) expect(pathsHolding(other.run, secret)).toEqual([]);
	});
});
