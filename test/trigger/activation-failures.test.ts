// What n8n does around a trigger's activation, and what the node must do about it (n8n 1.x, and 2.41 with its
// publication service off, in ActiveWorkflowManager.addWebhooks): per webhook node in order, checkExists then create;
// on a throw, a clean-up that calls delete on every webhook node with the static data as stored. The trigger keeps
// what may still have events to deliver, leaves nothing it made behind, and answers within about 20 seconds whatever
// the service does (a body that trickles in included). The two-trigger workflow and the proxy: activation-support.ts.
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTriggerHarness } from '../harness/trigger.ts';
import { rotateKey, subscriptionDeletes } from './support.ts';
import { rotationSetup, runKinds, withOneFailedCredentialRead } from './rotation-support.ts';
import { startTricklingProxy, TwoTriggerWorkflow } from './activation-support.ts';
import type { TricklingProxy } from './activation-support.ts';

const { sim, harnesses, advance, activeTrigger, bookLatest } = rotationSetup();

async function startTrigger() {
	const trigger = await startTriggerHarness({ baseUrl: sim.baseUrl, apiKey: sim.apiKeys.readWrite, parameters: { events: ['*'], options: {} } });
	harnesses.push(trigger);
	return trigger;
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
	for (const close of closers.splice(0)) await close();
});

const deletesOf = () => subscriptionDeletes(sim);

async function twoTriggerWorkflow(): Promise<TwoTriggerWorkflow> {
	const workflow = await new TwoTriggerWorkflow(
		[
			{ name: 'New bookings', id: 'a1a1a1a1-0000-4000-8000-000000000001', webhookId: 'a1a1a1a1-1111-4000-8000-000000000001', parameters: { events: ['*'], options: {} } },
			{ name: 'Cancellations', id: 'b2b2b2b2-0000-4000-8000-000000000002', webhookId: 'b2b2b2b2-2222-4000-8000-000000000002', parameters: { events: ['booking.cancelled'], options: {} } },
		],
		{ apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl },
	).start();
	closers.push(async () => await workflow.close());
	return workflow;
}

describe('n8n’s clean-up after a failed activation', () => {
	it('R27-1: a 429 on one trigger’s GET /me at a restart (n8n 1.x) keeps the other trigger’s subscription through n8n’s clean-up; every pending event runs', async () => {
		const workflow = await twoTriggerWorkflow();
		await workflow.activate('activate');
		const [newBookingsSub] = sim.control.webhooks().filter((sub) => sub.events.includes('*'));
		const { key: newKey } = sim.control.createKey('readWrite');
		workflow.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);
		const booking = await bookLatest(newKey);
		await sim.control.drainDeliveries();
		expect(workflow.runs.map((run) => `${run.node}: ${String(run.eventType)}`)).toEqual(['New bookings: booking.created']);

		advance(60_000);
		sim.control.setDeliveryMode({ shuffle: true }); // n8n is restarting: deliveries wait for a retry
		sim.control.cancel(booking.id, { by: 'host', reason: null });
		workflow.beforeHook = (node, hook) => {
			if (node === 'Cancellations' && hook === 'checkExists')
				sim.control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'rate_limit', retryAfterSeconds: 30 });
		};
		await expect(workflow.activate('init')).rejects.toThrow(/which account the API key belongs to/);
		workflow.beforeHook = undefined;
		await workflow.activate('init'); // n8n's queued retry
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(workflow.runs.map((run) => `${run.node}: ${String(run.eventType)}`).sort()).toEqual([
			'Cancellations: booking.cancelled',
			'New bookings: booking.cancelled',
			'New bookings: booking.created',
		]);
		expect(deletesOf()).not.toContain(newBookingsSub.id);
	}, 30_000);

	it('R27-2: a 503 on the second trigger’s subscribe (n8n 1.x): n8n’s clean-up deletes the subscription the first just made, nothing is orphaned', async () => {
		const workflow = await twoTriggerWorkflow();
		workflow.beforeHook = (node, hook) => {
			if (node === 'Cancellations' && hook === 'create')
				sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, kind: 'status', status: 503, code: 'unavailable' });
		};
		await expect(workflow.activate('activate')).rejects.toThrow(/Could not subscribe/);
		workflow.beforeHook = undefined;
		await workflow.activate('activate'); // the user publishes again
		await workflow.clearWebhooks(); // …and unpublishes later

		expect(sim.control.webhooks()).toEqual([]);
	});
});

describe('keep or delete: decided by what was recorded, never by a credential read or another URL’s outcome (issue 37-2, 5, 6)', () => {
	it('issue 37-2: the credential cannot be read at a re-activation: n8n’s clean-up keeps the subscription, and the event made meanwhile runs', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		sim.control.setDeliveryMode({ shuffle: true }); // n8n is re-activating: the delivery waits for a retry
		advance(60_000);
		await bookLatest(sim.apiKeys.readWrite);
		await expect(withOneFailedCredentialRead(async () => await trigger.activate('init'))).rejects.toThrow(/Connection terminated/);
		await trigger.activate('init'); // n8n's retry
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
		expect(runKinds(trigger)).toEqual(['booking.created']);
	});

	it('n8n 1.x: the clean-up after a failed re-activation keeps the subscription; unpublishing right after deletes it', async () => {
		const trigger = await activeTrigger();
		await expect(withOneFailedCredentialRead(async () => await trigger.activate('init'))).rejects.toThrow(/Connection terminated/);
		expect(sim.control.webhooks()).toHaveLength(1); // n8n's clean-up called delete: kept
		await trigger.deactivate(); // the builder unpublishes within 30 s: a real unpublish
		expect(sim.control.webhooks()).toEqual([]);
	});

	it.each([
		['a 503', { kind: 'status', status: 503, code: 'unavailable' }],
		['the limit of 25', { kind: 'status', status: 422, code: 'validation_failed', message: 'At most 25 webhook subscriptions per account' }],
	] as const)('issue 37-5: a test listen refused with %s, then unpublishing at once, deletes the production subscription', async (_name, fault) => {
		const trigger = await activeTrigger();
		sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, ...fault });
		await expect(trigger.listenForTestEvent()).rejects.toThrow();
		await trigger.deactivate();
		expect(sim.control.webhooks()).toEqual([]);
	});

	it('issue 37-5: a failed publish, then the test listen ending at once, deletes the test subscription', async () => {
		const trigger = await startTrigger();
		await trigger.listenForTestEvent();
		sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, kind: 'status', status: 503, code: 'unavailable' });
		await expect(trigger.activate()).rejects.toThrow(/Could not subscribe/);
		await trigger.stopListening();
		expect(sim.control.webhooks()).toEqual([]);
	});

	it('issue 37-6: a test subscription whose DELETE got a 429 is deleted at the next activation', async () => {
		const trigger = await startTrigger();
		await trigger.listenForTestEvent();
		const [testSubscription] = sim.control.webhooks();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 1, kind: 'rate_limit', retryAfterSeconds: 30 });
		await trigger.stopListening();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([testSubscription.id]);

		advance(60_000);
		await trigger.activate();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).not.toContain(testSubscription.id);
		expect(sim.control.webhooks()).toHaveLength(1);
	});
});

describe('bounded time, whatever the service does', () => {
	it('R27-4: an answer whose body trickles in a byte a second holds activation no longer than the request’s deadline', async () => {
		const proxy: TricklingProxy = await startTricklingProxy(sim.baseUrl);
		closers.push(async () => await proxy.close());
		const trigger = await startTriggerHarness({ baseUrl: proxy.baseUrl, apiKey: sim.apiKeys.readWrite, parameters: { events: ['*'], options: {} } });
		harnesses.push(trigger);
		await trigger.activate();
		const { key } = sim.control.createKey('readWrite');
		trigger.setCredential({ apiKey: key, baseUrl: proxy.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);

		proxy.trickle('GET', '/me', 25);
		const started = performance.now();
		await trigger.activate('init').catch(() => undefined);
		const seconds = (performance.now() - started) / 1000;

		expect(seconds).toBeLessThan(20);
	}, 60_000);

	it('R27-5: a service answering just inside every timeout holds one failing activation about 20 s at most, clean-up included', async () => {
		const trigger = await activeTrigger();
		rotateKey(sim, trigger);
		trigger.setParameters({ events: ['booking.created', 'booking.cancelled'], options: {} });
		sim.control.addFault({ method: 'GET', path: '/me', count: 10, kind: 'latency', latencyMs: 3_800 });
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 10, kind: 'latency', latencyMs: 6_000 });
		sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, kind: 'latency', latencyMs: 11_000 });

		const started = performance.now();
		await expect(trigger.activate('init')).rejects.toThrow();
		const seconds = (performance.now() - started) / 1000;

		expect(seconds).toBeLessThan(21);
	}, 60_000);
});
