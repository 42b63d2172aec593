// Rotating the API key of an active workflow (the credential edited in place: a new key of the same account in, the
// old key revoked at the service), through n8n-core's hook and webhook contexts against the simulator:
// - the subscription is kept, and its deliveries are checked against the service (the sealed secret opens only with
//   the old key) until the workflow is next published, which replaces it; every event runs once meanwhile;
// - a re-activation without a publish (n8n 1.x at start, a leadership change) keeps it too;
// - a service that does not answer while the trigger is activated or deactivated never makes it forget or delete a
//   subscription that may still have events to deliver; the activation fails saying so, and the retry succeeds;
// - there is never a second subscription, so no event can fall between two.
// The rules for the checked deliveries themselves are in checked-deliveries.test.ts.
import { describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import { openSecret } from '../../nodes/BookingServiceTrigger/signingSecret.ts';
import { OPENED_SECRET_TTL_MS } from '../../nodes/BookingServiceTrigger/memory.ts';
import type { FaultSpec } from '../simulator/traffic.ts';
import { api, bookIntroCalls, rotateKey, signFromScratch, subscriptionDeletes } from './support.ts';
import { rotationSetup, runKinds } from './rotation-support.ts';

const { sim, harnesses, advance, activeTrigger, bookLatest } = rotationSetup();

function runsPerBooking(harness: TriggerHarness): Record<string, number> {
	const runs: Record<string, number> = {};
	for (const execution of harness.executions) {
		const id = (execution.items[0].json.booking as { id: string }).id;
		runs[id] = (runs[id] ?? 0) + 1;
	}
	return runs;
}

const deletesOf = () => subscriptionDeletes(sim);

describe('an API key rotated on an active workflow', () => {
	it('before the next activation: every event runs once, checked against the service, and nothing is refused', async () => {
		const trigger = await activeTrigger();
		const newKey = rotateKey(sim, trigger);

		const bookingIds = await bookIntroCalls(sim, 3, newKey);
		await sim.control.drainDeliveries();

		expect(trigger.answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
		expect(runsPerBooking(trigger)).toEqual(Object.fromEntries(bookingIds.map((id) => [id, 1])));
		// What runs is the service's booking, read with the new key.
		for (const execution of trigger.executions) {
			const booking = execution.items[0].json.booking as { id: string };
			expect(booking).toEqual(await api(sim, 'GET', `/bookings/${booking.id}`, undefined, newKey));
			expect(execution.items[0].json.eventType).toBe('booking.created');
		}
	});

	it('a re-activation without a publish (n8n 1.x starting) keeps the subscription: events either side of it run once', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		const [beforeRestart] = await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();

		sim.control.setDeliveryMode({ shuffle: true }); // held back: made before the restart, delivered after it
		const [madeBefore] = await bookIntroCalls(sim, 1, newKey);
		expect(await trigger.activate('init')).toEqual({ created: false });
		const [madeAfter] = await bookIntroCalls(sim, 1, newKey);
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
		expect(deletesOf()).toEqual([]);
		expect(runsPerBooking(trigger)).toEqual({ [beforeRestart]: 1, [madeBefore]: 1, [madeAfter]: 1 });
		expect(trigger.answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
	});

	// Was lost (issue 27, 2): with a replacement subscription made at a re-activation, an event stamped in the same
	// instant but sent before the replacement existed reached only the old one, which acknowledged it without a run.
	it('no instant between two subscriptions: an event stamped in the same instant as a re-activation runs once', async () => {
		const trigger = await activeTrigger({ events: ['booking.created'] });
		const newKey = rotateKey(sim, trigger);
		advance(60_000); // Date stands still from here: the event and the re-activation share one instant
		sim.control.setDeliveryMode({ shuffle: true });
		const booking = await bookLatest(newKey);
		await trigger.activate('init');
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(runsPerBooking(trigger)).toEqual({ [booking.id]: 1 });
		expect(sim.control.webhooks()).toHaveLength(1);
	});

	it('publishing again replaces the subscription, deleted with the new key; events before and after run once', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		const [before] = await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();

		await trigger.deactivate(); // a publish: n8n deactivates, then activates
		expect(await trigger.activate()).toEqual({ created: true });
		expect(deletesOf()).toEqual([old.id]);
		const [replacement] = sim.control.webhooks();
		expect(replacement.id).not.toBe(old.id);
		const [after] = await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();

		expect(runsPerBooking(trigger)).toEqual({ [before]: 1, [after]: 1 });
		// The new subscription's secret is sealed under the new key: its deliveries are verified by their signature.
		expect(trigger.logs.filter((line) => line.message.includes(`confirmed it by reading booking ${after}`))).toEqual([]);
	});

	it('an event whose booking changed again before it could be checked still runs, with the booking as it is now', async () => {
		const trigger = await activeTrigger();
		const newKey = rotateKey(sim, trigger);
		sim.control.setDeliveryMode({ shuffle: true });
		const [bookingId] = await bookIntroCalls(sim, 1, newKey);
		await api(sim, 'POST', `/bookings/${bookingId}/cancel`, {}, newKey);
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		const runs = trigger.executions.map((execution) => execution.items[0].json as { eventType: string; booking: { status: string } });
		expect(runs.map((run) => run.eventType).sort()).toEqual(['booking.cancelled', 'booking.created']);
		expect(runs.map((run) => run.booking.status)).toEqual(['cancelled', 'cancelled']);
		expect(sim.control.deliveries().map((entry) => entry.status)).toEqual([200, 200]);
	});

	it('deactivating deletes the subscription with the new key, and clears what the node stored', async () => {
		const trigger = await activeTrigger();
		rotateKey(sim, trigger);
		await trigger.deactivate();
		expect(sim.control.webhooks()).toEqual([]);
		expect(trigger.nodeStaticData).toEqual({});
	});

	// R19-4 and R19-10 (fixed before by keeping a drain in use when the account was full): a rotation makes no second
	// subscription, so the account's limit of 25 is never reached by one.
	it('R19-4, R19-10: 13 triggers on one account re-activate after a rotation; events pending across it run once each', async () => {
		const triggers: TriggerHarness[] = [];
		for (let index = 0; index < 13; index++) triggers.push(await activeTrigger());
		const { key } = sim.control.createKey('readWrite');
		for (const trigger of triggers) trigger.setCredential({ apiKey: key, baseUrl: sim.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);
		const booking = await bookLatest(key);
		await sim.control.drainDeliveries();

		advance(60_000);
		sim.control.setDeliveryMode({ shuffle: true }); // n8n restarting: the deliveries wait for a retry
		sim.control.cancel(booking.id, { by: 'booker', reason: null });
		const outcomes = [];
		for (const trigger of triggers) outcomes.push(await trigger.activate('init'));
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(outcomes).toEqual(Array(13).fill({ created: false }));
		expect(sim.control.webhooks()).toHaveLength(13);
		expect(triggers.map((trigger) => runKinds(trigger).join(' + '))).toEqual(Array(13).fill('booking.created + booking.cancelled'));
	}, 60_000);

	it('instance B, rotated and re-activated, never touches instance A’s subscription', async () => {
		const first = await activeTrigger({ instanceId: 'instance-a' });
		const second = await startTriggerHarness({
			baseUrl: sim.baseUrl,
			apiKey: sim.apiKeys.readWrite,
			parameters: { events: ['*'], options: {} },
			instanceId: 'instance-b',
			workflowId: first.workflowId,
			copyOf: { savedStaticData: first.savedStaticData },
		});
		harnesses.push(second);
		await second.activate();
		const ids = sim.control.webhooks().map((subscription) => subscription.id);
		const newKey = rotateKey(sim, second);
		first.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		await second.activate('init');
		await first.activate('init');
		await second.deactivate();
		await second.activate();

		expect(sim.control.webhooks().map((subscription) => subscription.id)).toContain(ids[0]);
		expect(deletesOf()).toEqual([ids[1]]);
		await bookLatest(newKey);
		await sim.control.drainDeliveries();
		expect([first.executions.length, second.executions.length]).toEqual([1, 1]);
	});

	// R19-13: a leaked old key and a workflow export open the old signing secret. After the rotation a process trusts a
	// secret it opened earlier for at most OPENED_SECRET_TTL_MS; then, and in every other process, deliveries are
	// checked against the service, and a forged one names no real booking.
	it('R19-13: leaked old key + workflow export: once the opened secret is re-read, a forged signed cancellation is refused', async () => {
		const trigger = await activeTrigger();
		await bookLatest(sim.apiKeys.readWrite);
		await sim.control.drainDeliveries(); // an ordinary delivery: this process opened the secret
		const exported = JSON.parse(trigger.savedStaticData) as Record<string, { subscription?: { sealedSecret: string; workflowId: string; nodeId: string } }>;
		const leakedKey = sim.apiKeys.readWrite;
		rotateKey(sim, trigger);
		advance(OPENED_SECRET_TTL_MS);

		const record = Object.values(exported).find((nodeData) => nodeData.subscription !== undefined)!.subscription!;
		const secret = openSecret(record.sealedSecret, leakedKey, { workflowId: record.workflowId, nodeId: record.nodeId })!;
		expect(secret).toBeDefined();
		const invented = { id: 'abcdefabcdefabcdef012345', status: 'cancelled', manageUrl: 'https://attacker.example/rebook' };
		const body = JSON.stringify({ id: 'evt_000000000000000000forged', type: 'booking.cancelled', createdAt: new Date().toISOString(), apiVersion: 'v1', data: { booking: invented } });
		const answer = await trigger.post(body, { 'Service-Signature': signFromScratch(secret, body) });

		expect({ status: answer.status, runs: trigger.executions.length }).toEqual({ status: 401, runs: 1 });
	});

	it('no API key or signing secret reaches the log, the answers or static data through rotation, publish and forgeries', async () => {
		const trigger = await activeTrigger();
		const oldKey = sim.apiKeys.readWrite;
		const secrets = new Set<string>(sim.control.webhooks().map((subscription) => subscription.secret));
		const newKey = rotateKey(sim, trigger);
		await bookLatest(newKey);
		await sim.control.drainDeliveries();
		await trigger.activate('init');
		const body = JSON.stringify({ id: 'evt_x', type: 'booking.created', createdAt: new Date().toISOString(), data: { booking: { id: 'abcdefabcdefabcdefabcdef' } } });
		await trigger.post(body, { 'Service-Signature': signFromScratch('guess', body) });
		await trigger.deactivate();
		await trigger.activate();
		for (const subscription of sim.control.webhooks()) secrets.add(subscription.secret);
		await bookLatest(newKey);
		await sim.control.drainDeliveries();
		await trigger.deactivate();

		expect(secrets.size).toBe(2);
		const seen = JSON.stringify([trigger.logs, trigger.answers, trigger.savedStaticData, trigger.executions]);
		for (const secret of [oldKey, newKey, ...secrets]) expect(seen).not.toContain(secret);
		expect(trigger.executions).toHaveLength(2);
	});
});

// Issue 27, 1: "I could not find out" (a 429, a 5xx, a timeout, a dropped connection) was taken for "the key belongs
// to another account", and the subscription was forgotten (its pending events then refused for good) or deleted.
const NO_ANSWER: Array<[string, Omit<FaultSpec, 'method' | 'path' | 'count'>]> = [
	['429 with a Retry-After of an hour', { kind: 'rate_limit', retryAfterSeconds: 3_600 }],
	['500', { kind: 'status', status: 500 }],
	['503', { kind: 'status', status: 503, code: 'unavailable' }],
	['no answer within the timeout', { kind: 'latency', latencyMs: 6_000 }],
	['a dropped connection', { kind: 'drop' }],
];

describe('the service does not answer while a rotated trigger is activated or deactivated', () => {
	it('no API key or signing secret in the errors and logs of the findings’ failed activations', async () => {
		const trigger = await activeTrigger();
		const oldKey = sim.apiKeys.readWrite;
		const newKey = rotateKey(sim, trigger);
		trigger.setParameters({ events: ['booking.created'], options: {} });
		sim.control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'status', status: 503, code: 'unavailable' });
		const failure = await trigger.activate('init').then(() => undefined, (error: unknown) => error);
		sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, kind: 'drop' });
		const second = await trigger.activate().then(() => undefined, (error: unknown) => error);
		const seen = JSON.stringify([failure, (failure as Error)?.message, second, (second as Error)?.message, trigger.logs, trigger.savedStaticData]);
		for (const secret of [oldKey, newKey, ...sim.control.webhooks().map((subscription) => subscription.secret)]) expect(seen).not.toContain(secret);
	});

	it.each(NO_ANSWER)('GET /me: %s — the activation fails saying what to retry, keeps everything, and the retry runs every event once', async (_name, fault) => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		const booking = await bookLatest(newKey);
		await sim.control.drainDeliveries();
		advance(60_000);
		sim.control.setDeliveryMode({ shuffle: true }); // pending while n8n restarts
		sim.control.cancel(booking.id, { by: 'host', reason: null });
		const storedBefore = trigger.nodeStaticData;

		sim.control.addFault({ method: 'GET', path: '/me', count: 1, ...fault });
		const failure = await trigger.activate('init').then(() => undefined, (error: unknown) => error as { message: string; description: string });
		expect(failure?.message).toMatch(/^Could not ask the Booking Service which account the API key belongs to/);
		expect(failure?.description).toContain(`subscription ${old.id} is kept`);
		expect(failure?.description).toMatch(/Activate the workflow again/);
		// n8n's clean-up after the failure called delete: nothing was deleted or forgotten.
		expect(deletesOf()).toEqual([]);
		expect(trigger.nodeStaticData).toEqual(storedBefore);

		expect(await trigger.activate('init')).toEqual({ created: false }); // n8n's retry, or the user's
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.cancelled']);
	}, 30_000);

	it('a process that had opened the old secret keeps the subscription too', async () => {
		const trigger = await activeTrigger();
		await bookLatest(sim.apiKeys.readWrite);
		await sim.control.drainDeliveries(); // this process opened the secret
		const [old] = sim.control.webhooks();
		rotateKey(sim, trigger);
		sim.control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'status', status: 500 });
		await expect(trigger.activate('init')).rejects.toThrow(/which account/);
		expect(deletesOf()).toEqual([]);
		expect(await trigger.activate('init')).toEqual({ created: false });
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
	});

	const DEACTIVATION_CASES = NO_ANSWER.flatMap(([name, fault]) => [
		['GET /me', name, { method: 'GET', path: '/me', ...fault }],
		['DELETE', name, { method: 'DELETE', path: '/webhooks/{id}', ...fault }],
	]) as Array<[string, string, Omit<FaultSpec, 'count'>]>;

	it.each(DEACTIVATION_CASES)('deactivation, %s: %s — the subscription stays recorded and is deleted next time', async (_request, _name, fault) => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		rotateKey(sim, trigger);
		sim.control.addFault({ count: 1, ...fault });
		await trigger.deactivate();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
		expect(trigger.nodeStaticData).toEqual({ undeleted: [expect.objectContaining({ id: old.id })] });
		expect(trigger.logs.some((line) => line.level === 'warn' && line.message.includes(old.id))).toBe(true);

		await trigger.activate();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).not.toContain(old.id);
		expect(trigger.nodeStaticData.undeleted).toBeUndefined();
	}, 30_000);

	it('a publish whose every request fails: nothing is forgotten, and the next publish cleans up and subscribes', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		rotateKey(sim, trigger);
		sim.control.addFault({ method: 'GET', path: '/me', count: 3, kind: 'status', status: 502 });
		await trigger.deactivate();
		await expect(trigger.activate()).rejects.toThrow(/Could not read the Booking Service account of the API key.*/);
		expect(trigger.nodeStaticData).toEqual({ undeleted: [expect.objectContaining({ id: old.id })] });

		expect(await trigger.activate()).toEqual({ created: true });
		expect(deletesOf()).toEqual([old.id]);
		expect(sim.control.webhooks()).toHaveLength(1);
		expect(trigger.nodeStaticData.undeleted).toBeUndefined();
	});

	it('a service that hangs holds neither activation nor deactivation past the node’s own timeouts', async () => {
		const trigger = await activeTrigger();
		rotateKey(sim, trigger);
		sim.control.addFault({ method: '*', path: '*', count: 10, kind: 'latency', latencyMs: 60_000 });
		await expect(trigger.activate('init')).rejects.toThrow(/which account the API key belongs to: .*did not answer GET \/me within 4 s/);
		advance(31_000); // past n8n's clean-up of that failure: a deactivation of its own
		await trigger.deactivate();
		expect(trigger.nodeStaticData.undeleted).toHaveLength(1);
	}, 30_000);
});
