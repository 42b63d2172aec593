// Rotating the API key of an active workflow (the credential edited in place: a new key of the same account in, the
// old key revoked at the service) loses no event, through n8n-core's hook and webhook contexts against the simulator:
// - before the next activation, deliveries this process cannot verify (it never opened the secret, as after a restart
//   or in a webhook process started since) are checked against the service and run once, with the service's booking;
// - the next activation subscribes anew and keeps the old subscription draining: an event made before the
//   replacement but delivered after it runs once, a later one (delivered by both) runs once;
// - forged requests start nothing; when the drain is over the old subscription is deleted.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { DRAIN_MS } from '../../nodes/BookingServiceTrigger/retirement.ts';
import { api, bookIntroCalls, rotateKey, signFromScratch } from './support.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
const harnesses: TriggerHarness[] = [];

afterEach(async () => {
	vi.useRealTimers();
	for (const harness of harnesses.splice(0)) await harness.close();
});

async function activeTrigger(): Promise<TriggerHarness> {
	const harness = await startTriggerHarness({
		baseUrl: sim.baseUrl,
		apiKey: sim.apiKeys.readWrite,
		parameters: { events: ['*'], options: {} },
	});
	harnesses.push(harness);
	await harness.activate();
	return harness;
}


function runsPerBooking(harness: TriggerHarness): Record<string, number> {
	const runs: Record<string, number> = {};
	for (const execution of harness.executions) {
		const id = (execution.items[0].json.booking as { id: string }).id;
		runs[id] = (runs[id] ?? 0) + 1;
	}
	return runs;
}

function deletesOf(): string[] {
	return sim.control
		.requests()
		.filter((request) => request.method === 'DELETE' && request.route === '/webhooks/{id}')
		.map((request) => request.path.split('/').pop()!);
}

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
		expect(sim.control.deliveries().every((entry) => entry.status === 200)).toBe(true);
	});

	it('the next activation subscribes anew and drains the old subscription: events on either side of it run once', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		const [beforeRestart] = await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();

		// Held back: made before the replacement, delivered (by the old subscription only) after it.
		sim.control.setDeliveryMode({ shuffle: true });
		const [madeBefore] = await bookIntroCalls(sim, 1, newKey);
		expect(await trigger.activate('init')).toEqual({ created: true }); // e.g. n8n restarted
		const subscriptions = sim.control.webhooks();
		expect(subscriptions.map((subscription) => subscription.id)).toContain(old.id);
		expect(subscriptions).toHaveLength(2);
		expect(deletesOf()).toEqual([]);
		const [madeAfter] = await bookIntroCalls(sim, 1, newKey); // delivered by both subscriptions
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(runsPerBooking(trigger)).toEqual({ [beforeRestart]: 1, [madeBefore]: 1, [madeAfter]: 1 });
		expect(trigger.answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
		expect(sim.control.deliveries().filter((entry) => entry.subscriptionId === old.id)).toHaveLength(3);
		const leftovers = trigger.nodeStaticData.leftoverSubscriptions as Array<Record<string, string>>;
		expect(leftovers).toEqual([expect.objectContaining({ id: old.id, drainUntil: expect.any(String) })]);
		expect(Date.parse(leftovers[0].drainUntil) - Date.now()).toBeGreaterThan(DRAIN_MS - 60_000);
	});

	it('forged requests start nothing while deliveries are checked against the service', async () => {
		const trigger = await activeTrigger();
		const newKey = rotateKey(sim, trigger);
		const [bookingId] = await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toHaveLength(1);
		const real = await api<Record<string, unknown>>(sim, 'GET', `/bookings/${bookingId}`, undefined, newKey);

		let forgeries = 0;
		const forge = async (type: string, booking: unknown, t = Math.floor(Date.now() / 1000)) => {
			forgeries += 1;
			const id = `evt_${String(forgeries).padStart(24, '0')}`;
			const body = JSON.stringify({ id, type, createdAt: new Date().toISOString(), apiVersion: 'v1', data: { booking } });
			return await trigger.post(body, { 'Service-Signature': signFromScratch('guessed-secret', body, t) });
		};
		const refused = { status: 401, body: 'Unauthorized' };
		// A booking the service does not have.
		expect(await forge('booking.created', { ...real, id: 'abcdefabcdefabcdefabcdef' })).toEqual(refused);
		// The real booking, altered.
		expect(await forge('booking.created', { ...real, booker: { ...(real.booker as object), name: 'Mallory' } })).toEqual(refused);
		// The real booking exactly, under an event its state contradicts.
		expect(await forge('booking.cancelled', real)).toEqual(refused);
		expect(await forge('booking.no_show', real)).toEqual(refused);
		expect(await forge('booking.rescheduled', real)).toEqual(refused);
		// A stale timestamp.
		expect(await forge('booking.created', real, Math.floor(Date.now() / 1000) - 3600)).toEqual(refused);
		// The real booking exactly, as the event it was, under a new id: this state already ran here, so it is a replay.
		expect(await forge('booking.created', real)).toEqual(refused);

		expect(trigger.executions).toHaveLength(1);
	});

	it('when the drain is over, the old subscription is deleted: by the first delivery, or by activation', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		await trigger.activate('init');
		const replacement = sim.control.webhooks().find((subscription) => subscription.id !== old.id)!;

		vi.useFakeTimers({ toFake: ['Date'] });
		vi.setSystemTime(Date.now() + DRAIN_MS + 60_000); // the simulator's clock follows
		const [bookingId] = await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();
		for (let attempt = 0; attempt < 50 && deletesOf().length === 0; attempt++) await new Promise((r) => setTimeout(r, 20));

		expect(deletesOf()).toEqual([old.id]);
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([replacement.id]);
		expect(runsPerBooking(trigger)).toEqual({ [bookingId]: 1 });
		// The next activation finds it gone and drops the record.
		await trigger.activate('init');
		expect(trigger.nodeStaticData.leftoverSubscriptions).toBeUndefined();
	});

	it('an activation after the drain deletes the old subscription even if no delivery came', async () => {
		const trigger = await activeTrigger();
		const [old] = sim.control.webhooks();
		rotateKey(sim, trigger);
		await trigger.activate('init');

		vi.useFakeTimers({ toFake: ['Date'] });
		vi.setSystemTime(Date.now() + DRAIN_MS + 60_000);
		expect(await trigger.activate('init')).toEqual({ created: false });

		expect(deletesOf()).toEqual([old.id]);
		expect(sim.control.webhooks()).toHaveLength(1);
		expect(trigger.nodeStaticData.leftoverSubscriptions).toBeUndefined();
	});

	it('an event whose booking changed again before it could be checked still runs, with the booking as it is now', async () => {
		const trigger = await activeTrigger();
		const newKey = rotateKey(sim, trigger);
		sim.control.setDeliveryMode({ shuffle: true }); // holds both deliveries until the drain
		const [bookingId] = await bookIntroCalls(sim, 1, newKey);
		await api(sim, 'POST', `/bookings/${bookingId}/cancel`, {}, newKey);
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		const statusOf = (type: string) =>
			sim.control.deliveries().find((entry) => entry.type === type)?.status;
		expect(statusOf('booking.created')).toBe(200);
		expect(statusOf('booking.cancelled')).toBe(200);
		const runs = trigger.executions.map((execution) => execution.items[0].json as { eventType: string; booking: { status: string } });
		// Either order (the drain shuffles); both carry the service's booking as read, cancelled by then.
		expect(runs.map((run) => run.eventType).sort()).toEqual(['booking.cancelled', 'booking.created']);
		expect(runs.map((run) => run.booking.status)).toEqual(['cancelled', 'cancelled']);
	});

	it('deactivating while the old subscription drains deletes both', async () => {
		const trigger = await activeTrigger();
		rotateKey(sim, trigger);
		await trigger.activate('init');
		expect(sim.control.webhooks()).toHaveLength(2);

		await trigger.deactivate();

		expect(sim.control.webhooks()).toEqual([]);
		expect(trigger.nodeStaticData).toEqual({});
	});
});
