// The trigger's whole life against the simulator, through n8n-core's hook and webhook contexts
// (test/harness/trigger.ts): activation, real signed deliveries (duplicated and out of order), deactivation, and every way a subscription can be
// replaced or already gone. Nothing here waits on time: deliveries are awaited with the simulator's drain.
import { beforeEach, describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { api, bookIntroCalls, laterFreeStart } from './support.ts';
import { useTriggerHarnesses } from './harnesses.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
let trigger: TriggerHarness;

const harnesses = useTriggerHarnesses(sim);

beforeEach(async () => {
	trigger = await harnesses.start({ parameters: { events: ['booking.created', 'booking.rescheduled', 'booking.cancelled'], options: {} } });
});

function eventIdsOf(harness: TriggerHarness, mode: 'production' | 'test' = 'production'): string[] {
	return harness.executions
		.filter((execution) => execution.mode === mode)
		.map((execution) => String(execution.items[0].json.eventId));
}

/** Every signing secret the simulator handed out in this file (it only shows the current ones). */
const knownSecrets = new Set<string>();
function rememberSecrets(): void {
	for (const subscription of sim.control.webhooks()) knownSecrets.add(subscription.secret);
}

/** Nothing a test can observe — static data, logs, answers — may contain a signing secret. */
function expectNoSecretLeaked(harness: TriggerHarness): void {
	rememberSecrets();
	expect(knownSecrets.size).toBeGreaterThan(0);
	const observable = JSON.stringify([harness.staticData, harness.logs, harness.answers]);
	for (const secret of knownSecrets) expect(observable).not.toContain(secret);
}

describe('activation', () => {
	it('subscribes the Production URL to the chosen events, naming the workflow, and keeps the secret sealed', async () => {
		expect(await trigger.activate()).toEqual({ created: true });

		const [subscription] = sim.control.webhooks();
		expect(sim.control.webhooks()).toHaveLength(1);
		expect(subscription).toMatchObject({
			url: trigger.productionUrl,
			events: ['booking.cancelled', 'booking.created', 'booking.rescheduled'],
			status: 'active',
		});
		expect(subscription.description).toContain('Booking follow-ups');
		expect(subscription.description!.length).toBeLessThanOrEqual(200);

		const stored = trigger.nodeStaticData.subscription as Record<string, unknown>;
		expect(stored).toMatchObject({ id: subscription.id, webhookUrl: trigger.productionUrl });
		expect(String(stored.sealedSecret)).toMatch(/^v1\./);
		rememberSecrets();
		expectNoSecretLeaked(trigger);
	});

	it('does not subscribe again when n8n re-activates an unchanged workflow (e.g. after a restart)', async () => {
		await trigger.activate();
		expect(await trigger.activate('init')).toEqual({ created: false });
		expect(sim.control.webhooks()).toHaveLength(1);
	});
});

describe('deliveries', () => {
	it('runs once per event even when every event arrives three times and out of order', async () => {
		await trigger.activate();
		sim.control.setDeliveryMode({ duplicates: 2, shuffle: true });
		const bookingIds = await bookIntroCalls(sim, 4);
		const log = await sim.control.drainDeliveries();

		const createdEvents = sim.control.events().filter((event) => event.type === 'booking.created');
		expect(createdEvents).toHaveLength(4);
		// The simulator really sent each event three times, and every copy was answered with a 2xx.
		expect(log.filter((entry) => entry.outcome === 'delivered')).toHaveLength(12);
		expect(log.every((entry) => entry.outcome === 'delivered' && entry.status === 200)).toBe(true);
		// The copies arrived in another order than emitted (each event's three copies back to back).
		const arrival = trigger.received.map((request) => String(request.headers['service-event-id']));
		expect(arrival).not.toEqual(createdEvents.flatMap((event) => [event.id, event.id, event.id]));

		expect(eventIdsOf(trigger).sort()).toEqual(createdEvents.map((event) => event.id).sort());
		expect(
			trigger.executions.map((execution) => (execution.items[0].json.booking as { id: string }).id).sort(),
		).toEqual([...bookingIds].sort());
		expect(trigger.answers.filter((answer) => answer.status === 200)).toHaveLength(12);
		// Dropped from this process's memory: nothing was written to static data.
		expect(trigger.webhookStaticDataSaves).toBe(0);
	});

	it('emits the booking, the event id, type and time, and every other data field such as the previous time', async () => {
		await trigger.activate();
		const [bookingId] = await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		const start = await laterFreeStart(sim);
		sim.control.reschedule(bookingId, { start, by: 'booker' });
		await sim.control.drainDeliveries();

		const rescheduled = sim.control.events().find((event) => event.type === 'booking.rescheduled')!;
		const item = trigger.executions.at(-1)!.items[0].json;
		const { booking, ...previousTime } = rescheduled.data as Record<string, unknown>;
		expect(item).toEqual({
			eventId: rescheduled.id,
			eventType: 'booking.rescheduled',
			eventCreatedAt: rescheduled.createdAt,
			booking,
			...previousTime,
		});
		expect(Object.keys(previousTime).length).toBeGreaterThan(0);
		expect((item.booking as { start: string }).start).toBe(start);
	});

	it('adds the whole envelope on request and can localize names like the action node', async () => {
		trigger.setParameters({ events: ['*'], options: { includeEnvelope: true, nameLanguage: 'ja' } });
		await trigger.activate();
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();

		const [event] = sim.control.events();
		const item = trigger.executions[0].items[0].json;
		expect(item.envelope).toEqual(event);
		expect((item.booking as { eventType: { name: string } }).eventType.name).toBe('初回相談');
	});

	it('refuses real deliveries signed more than five minutes off, and runs once when a retry is in time', async () => {
		await trigger.activate();
		// The service's clock runs 10 minutes behind: its signatures are stale on arrival.
		sim.control.setClock(new Date(Date.now() - 10 * 60_000).toISOString());
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(sim.control.deliveries().map((entry) => [entry.attempt, entry.status])).toEqual([[1, 401]]);
		expect(trigger.executions).toHaveLength(0);

		// Its retries (after 60 s, then 300 s more) carry later timestamps; the one within five minutes is accepted.
		await sim.control.advanceClock(8 * 60);
		expect(sim.control.deliveries().map((entry) => [entry.attempt, entry.status])).toEqual([
			[1, 401],
			[2, 401],
			[3, 200],
		]);
		expect(trigger.executions).toHaveLength(1);
	});

	it('acknowledges events that are not selected without running', async () => {
		trigger.setParameters({ events: ['booking.cancelled'], options: {} });
		await trigger.activate();
		// Subscribed to cancellations only: the service sends no booking.created at all.
		await bookIntroCalls(sim, 1);
		const log = await sim.control.drainDeliveries();
		expect(log).toHaveLength(0);
		expect(trigger.executions).toHaveLength(0);
	});
});

describe('deactivation', () => {
	it('deletes the subscription and clears what the node stored', async () => {
		await trigger.activate();
		await trigger.deactivate();
		expect(sim.control.webhooks()).toEqual([]);
		expect(trigger.nodeStaticData).toEqual({});
	});

	it('is not blocked by a subscription already deleted on the service (404)', async () => {
		await trigger.activate();
		const [subscription] = sim.control.webhooks();
		await api(sim, 'DELETE', `/webhooks/${subscription.id}`);

		await expect(trigger.deactivate()).resolves.toBeUndefined();
		expect(trigger.nodeStaticData).toEqual({});
		expect(trigger.logs.filter((line) => line.level === 'warn')).toEqual([]);
	});

	it('is not blocked when the service answers 410 Gone', async () => {
		await trigger.activate();
		sim.control.addFault({
			method: 'DELETE',
			path: '/webhooks/{id}',
			count: 1,
			kind: 'status',
			status: 410,
			code: 'gone',
		});

		await expect(trigger.deactivate()).resolves.toBeUndefined();
		expect(trigger.nodeStaticData).toEqual({});
	});

	it('is not blocked by any other failure: it logs, keeps the id, and deletes it on the next activation', async () => {
		await trigger.activate();
		const [orphan] = sim.control.webhooks();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 1, kind: 'status', status: 500 });

		await expect(trigger.deactivate()).resolves.toBeUndefined();
		expect(trigger.nodeStaticData).toEqual({
			undeleted: [
				{
					id: orphan.id,
					workflowId: trigger.workflowId,
					nodeId: expect.any(String),
					instanceId: expect.any(String),
					baseUrl: sim.baseUrl,
					accountId: expect.any(String),
					sealedSecret: expect.stringMatching(/^v1\./),
				},
			],
		});
		const warning = trigger.logs.find((line) => line.level === 'warn');
		expect(warning?.message).toContain(orphan.id);

		await trigger.activate();
		const subscriptions = sim.control.webhooks();
		expect(subscriptions).toHaveLength(1);
		expect(subscriptions[0].id).not.toBe(orphan.id);
		expect(trigger.nodeStaticData.undeleted).toBeUndefined();
	});
});

describe('replacing a subscription', () => {
	it('re-subscribes when the events change and leaves nothing behind', async () => {
		await trigger.activate();
		const [before] = sim.control.webhooks();

		trigger.setParameters({ events: ['booking.no_show'], options: {} });
		expect(await trigger.activate('init')).toEqual({ created: true });

		const after = sim.control.webhooks();
		expect(after).toHaveLength(1);
		expect(after[0].id).not.toBe(before.id);
		expect(after[0].events).toEqual(['booking.no_show']);
	});

	it('treats a reordered selection as unchanged', async () => {
		await trigger.activate();
		trigger.setParameters({
			events: ['booking.rescheduled', 'booking.created', 'booking.cancelled', 'booking.created'],
			options: {},
		});
		expect(await trigger.activate('init')).toEqual({ created: false });
	});

	it('keeps the subscription when the API key changed within the account: its deliveries are checked, nothing is refused', async () => {
		await trigger.activate();
		const [before] = sim.control.webhooks();
		const { key } = sim.control.createKey('readWrite');
		trigger.setCredential({ apiKey: key, baseUrl: sim.baseUrl });

		expect(await trigger.activate('init')).toEqual({ created: false });
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([before.id]);
		expect(trigger.logs.find((line) => line.level === 'info')?.message).toMatch(/API key changed \(same account\)/);

		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.answers.map((answer) => answer.status)).toEqual([200]);
	});

	it('keeps the subscription when the sealed secret in static data was altered (as a changed key of the same account)', async () => {
		await trigger.activate();
		trigger.editNodeStaticData((nodeData) => {
			(nodeData.subscription as Record<string, string>).sealedSecret = 'v1.AAAA.BBBB.CCCC.DDDD';
		});
		expect(await trigger.activate('init')).toEqual({ created: false });
		expect(sim.control.webhooks()).toHaveLength(1);
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(1);
	});

	it('verifies deliveries to a new subscription with its new secret, not one opened for the old', async () => {
		await trigger.activate();
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(1);

		trigger.setParameters({ events: ['booking.created', 'booking.no_show'], options: {} });
		expect(await trigger.activate('init')).toEqual({ created: true });
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(2);
		expect(trigger.answers.map((answer) => answer.status)).toEqual([200, 200]);
	});

	it('publishing again after a key change replaces the subscription, deleted with the new key', async () => {
		await trigger.activate();
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		const [before] = sim.control.webhooks();

		const { key } = sim.control.createKey('readWrite');
		trigger.setCredential({ apiKey: key, baseUrl: sim.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);
		// The service still signs with the subscription's secret, which this process opened for the first delivery.
		await bookIntroCalls(sim, 1, key);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(2);

		// A publish: n8n deactivates (delete), then activates (checkExists, create).
		await trigger.deactivate();
		expect(await trigger.activate()).toEqual({ created: true });
		const after = sim.control.webhooks();
		expect(after).toHaveLength(1);
		expect(after[0].id).not.toBe(before.id);
		await bookIntroCalls(sim, 1, key);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(3);
		expect(trigger.answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
		expectNoSecretLeaked(trigger);
	});
});

describe('test URL and production URL', () => {
	it('keeps a test subscription separate from the production one and removes it after the test event', async () => {
		await trigger.activate();
		await trigger.listenForTestEvent();
		const subscriptions = sim.control.webhooks();
		expect(subscriptions.map((subscription) => subscription.url).sort()).toEqual(
			[trigger.productionUrl, trigger.testUrl].sort(),
		);
		expect(subscriptions.find((subscription) => subscription.url === trigger.testUrl)?.description).toContain(
			'(test URL)',
		);
		rememberSecrets();

		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		await trigger.whenIdle();

		// The same event reached both subscriptions; each ran once.
		expect(eventIdsOf(trigger, 'production')).toHaveLength(1);
		expect(eventIdsOf(trigger, 'test')).toEqual(eventIdsOf(trigger, 'production'));
		// The test subscription is gone after its event, the production one stays.
		expect(sim.control.webhooks().map((subscription) => subscription.url)).toEqual([trigger.productionUrl]);
		expectNoSecretLeaked(trigger);
	});
});

describe('activation failures say what to do', () => {
	it('names the missing permission for a read-only key', async () => {
		trigger.setCredential({ apiKey: sim.apiKeys.readOnly, baseUrl: sim.baseUrl });
		await expect(trigger.activate()).rejects.toThrow(/webhooks:manage/);
		expect(sim.control.webhooks()).toEqual([]);
	});

	it('explains test vs production URLs, https, WEBHOOK_URL and tunnels when the service refuses the URL', async () => {
		sim.control.setInsecureWebhookTargets({ allowed: false });
		const error = await trigger.activate().then(
			() => undefined,
			(thrown: unknown) => thrown as { message: string; description: string },
		);
		expect(error?.message).toMatch(/refused this trigger's webhook URL http:\/\/127\.0\.0\.1:\d+\/webhook\/.*https/);
		expect(error?.description).toMatch(/Test URL/);
		expect(error?.description).toMatch(/Production URL/);
		expect(error?.description).toMatch(/WEBHOOK_URL/);
		expect(error?.description).toMatch(/tunnel/);
		expect(sim.control.webhooks()).toEqual([]);
	});

	it('says so when the account already has 25 subscriptions', async () => {
		for (let index = 0; index < 25; index += 1) {
			await api(sim, 'POST', '/webhooks', { url: `http://127.0.0.1:9/other-${index}`, events: ['*'] });
		}
		await expect(trigger.activate()).rejects.toThrow(/maximum of 25 webhook subscriptions/);
	});

	it('refuses to activate without any event selected', async () => {
		trigger.setParameters({ events: [], options: {} });
		await expect(trigger.activate()).rejects.toThrow(/at least one event/);
		expect(sim.control.webhooks()).toEqual([]);
	});
});
