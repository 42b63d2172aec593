// Red team 9 (outsider): the listing read that goes on after its request stopped waiting, and look-ups kept as listed
// (budget.ts keepListed, listedBooking; serviceCheck.ts confirmWithService).
// Finding: RT9-1 (keepListed/setAsNewest overwrites whatever is kept: a listing read that ends after a look-up keeps
// its older state, stamped with its own earlier start, over the look-up's newer one; RT8-3 again: a forged reschedule
// dated 6 s before the read runs the booking's previous time after its current one, answered 200). The same
// overwrite applies to any two reads of one booking that end out of order (e.g. a slow look-up after a quick one).
// Held: a read that ends after the credential was switched to another account keeps nothing (credential read live,
// as in n8n); a read due while the previous one still runs starts no second; RT9-1's control (a quick listing).
// RT9-1 fixed (5078187): keepListed never keeps a booking over what a read begun later kept.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { listingsKept } from '../../nodes/BookingServiceTrigger/budget.ts';
import { rotationSetup } from './rotation-support.ts';
import { freeIntroCallStarts } from './support.ts';
import { budgetSteps, firstPages, forgeAt, noSecret } from './red-team-budget-support.ts';
import { EngineCredentialsHelper } from '../harness/engine-credentials.ts';

const setup = rotationSetup();
const { sim, advance } = setup;
const { rotatedTriggers, attempt, sentSince } = budgetSteps(setup);

const lastEventBody = (bookingId: string, type: string) =>
	JSON.stringify(sim.control.events().filter((entry) => entry.data.booking.id === bookingId && entry.type === type).at(-1));
const startsRun = (trigger: TriggerHarness) => trigger.executions.map((execution) => (execution.items[0].json.booking as { start: string }).start);
const realSleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('red team 9: a listing read that outlives its request', () => {
	// RT9-1 (RT8-3 again, through the read that goes on). History: one active trigger; key rotated (new key, old
	// revoked, no republish); 150 other bookings changed lately (the newest page has a next cursor); the service is slow
	// for the pages after a list's first (3.5 s each, answered after being read: within a page's 4 s). A booking made
	// (its creation runs through a look-up). A forger spends the trigger's look-ups. The booker moves the booking to
	// start1; its delivery finds the look-ups spent and starts a listing read at r: the newest page (start1) is read at
	// once, the pass's pages take 3.5 s each; the request stops waiting after 4 s (401, retried). 5 s later the booker
	// moves it to start2; that delivery's look-up runs it with start2 and keeps start2 as listed at r + 5 s. The read
	// begun at r then ends and keeps its newest page's start1 over it, stamped r (setAsNewest overwrites whatever is
	// kept, older or not). 1 s later the forger posts a forged `booking.rescheduled` dated 6 s before r: the kept
	// start1 (read at r ≥ createdAt + 5 s) shows it, its fact never ran: it runs, after start2.
	// Promise broken: docs/webhook-trigger.md "Forged, stale or garbage requests: Refused (401), no execution"; the
	// commit (RT8-3 fix): "a look-up keeps what it read as listed, so no later check takes an older state for a booking".
	it('RT9-1: a listing read that ends after a look-up does not keep an older state over the look-up’s', async () => {
		const { status, ran, current } = await staleHistory({ slowPassMs: 3_000 });
		process.stdout.write(`[rt9-1] forged reschedule answered ${status}; runs' starts ${JSON.stringify(ran)}; booking now at ${current}\n`);
		expect(ran.at(-1)).toBe(current);
		expect(ran).toHaveLength(2);
	}, 120_000);

	// Control: the same history, the pass's pages quick (the read ends before the look-up): nothing runs from the forgery.
	it('held: the same history with a quick listing runs nothing from the forged reschedule', async () => {
		const { status, ran, current } = await staleHistory({ slowPassMs: 0 });
		process.stdout.write(`[rt9-1 control] forged reschedule answered ${status}; runs' starts ${JSON.stringify(ran)}\n`);
		expect(ran.at(-1)).toBe(current);
		expect(ran).toHaveLength(2);
	}, 120_000);

	async function staleHistory({ slowPassMs }: { slowPassMs: number }) {
		const { triggers, newKey } = await rotatedTriggers(1);
		const [trigger] = triggers;
		sim.control.setDeliveryMode({ shuffle: true });
		advance(60_000);
		sim.control.generateBookings({ count: 150 });
		advance(60_000);
		const booking = await setup.bookLatest(newKey);
		const { starts } = await freeIntroCallStarts(sim, newKey);
		expect(await attempt(trigger, JSON.stringify(sim.control.events().find((entry) => entry.data.booking.id === booking.id)))).toBe(200);
		for (let index = 0; index < 25; index++) await forgeAt(trigger);
		advance(10_000);
		for (let index = 0; index < 2; index++) await forgeAt(trigger);
		if (slowPassMs > 0) {
			// the pass's page: 5 s (past its own 4 s deadline); the newest page: answered 3 s after it was read
			sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: 5_000, query: { cursor: '*' } });
			sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: slowPassMs, phase: 'after', query: { sort: '*' } });
		}
		sim.control.reschedule(booking.id, { start: starts[0], by: 'booker' });
		const readsBefore = firstPages(sentSince(0)).length;
		const readAt = Date.now();
		const started = performance.now();
		expect(await attempt(trigger, lastEventBody(booking.id, 'booking.rescheduled'))).toBe(401);
		process.stdout.write(`[rt9] first request waited ${Math.round(performance.now() - started)} ms\n`);
		expect(firstPages(sentSince(0)).length).toBe(readsBefore + 1);
		advance(5_000);
		sim.control.reschedule(booking.id, { start: starts[1], by: 'booker' });
		expect(await attempt(trigger, lastEventBody(booking.id, 'booking.rescheduled'))).toBe(200);
		expect(startsRun(trigger).at(-1)).toBe(starts[1]);
		await realSleep(slowPassMs > 0 ? 9_000 : 0); // the read begun at r ends
		sim.control.clearFaults();
		advance(1_000);
		const forged = JSON.stringify({ id: 'evt_rt9stale00000000000000', type: 'booking.rescheduled', createdAt: new Date(readAt - 6_000).toISOString(), apiVersion: 'v1', data: { booking: { id: booking.id } } });
		const status = (await trigger.post(forged, noSecret(forged))).status;
		return { status, ran: startsRun(trigger), current: starts[1] };
	}
});

const others: Simulator[] = [];
afterEach(async () => {
	for (const other of others.splice(0)) await other.close();
});

describe('red team 9: a credential switched while a read goes on', () => {
	// History: as RT9-1 up to the first request (a read begun at r, its pass page slow); after the request stopped
	// waiting (401) and before the read ends, the user switches the credential to another account's key and Base URL.
	// Promise (security page, RT5-C2): a read is kept only if the credential still holds the account's key after it.
	it('held: a read that ends after the credential was switched to another account keeps nothing', async () => {
		const { keptBefore, keptAfter } = await switchHistory(true);
		expect(keptAfter).toBe(keptBefore);
	}, 120_000);

	it('held (control): the same read without the switch keeps the bookings changed since the last read', async () => {
		const { keptBefore, keptAfter } = await switchHistory(false);
		expect(keptAfter).toBeGreaterThanOrEqual(keptBefore + 40);
	}, 120_000);

	async function switchHistory(switching: boolean) {
		const { triggers, newKey } = await rotatedTriggers(1);
		const [trigger] = triggers;
		sim.control.setDeliveryMode({ shuffle: true });
		advance(60_000);
		sim.control.generateBookings({ count: 150 });
		advance(60_000);
		const booking = await setup.bookLatest(newKey);
		const { starts } = await freeIntroCallStarts(sim, newKey);
		for (let index = 0; index < 25; index++) await forgeAt(trigger);
		advance(10_000);
		for (let index = 0; index < 2; index++) await forgeAt(trigger);
		sim.control.generateBookings({ count: 50 }); // changed since the last read: listed by the next
		advance(100);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: 5_000, query: { cursor: '*' } });
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: 3_000, phase: 'after', query: { sort: '*' } });
		sim.control.reschedule(booking.id, { start: starts[0], by: 'booker' });
		const keptBefore = listingsKept().bookings;
		expect(await attempt(trigger, lastEventBody(booking.id, 'booking.rescheduled'))).toBe(401);
		if (switching) {
			const other = await startSimulator({ rateLimit: false, allowInsecureWebhookTargets: true, seed: 919 });
			others.push(other);
			const switched = { apiKey: other.apiKeys.readWrite, baseUrl: other.baseUrl };
			trigger.setCredential(switched);
			// In n8n a context's credential read goes to the database each time: a running read sees the switch too
			// (the harness gives a request's context the helper of its moment).
			vi.spyOn(EngineCredentialsHelper.prototype, 'getDecrypted').mockImplementation(async () => ({ ...switched }));
		}
		await realSleep(9_000);
		sim.control.clearFaults();
		vi.restoreAllMocks();
		const keptAfter = listingsKept().bookings;
		process.stdout.write(`[rt9 switch=${switching}] kept before ${keptBefore}, after ${keptAfter}\n`);
		return { keptBefore, keptAfter };
	}
});

describe('red team 9: two reads of one account', () => {
	// History: one active trigger, key rotated; 150 bookings changed lately; the pass's pages slow (5 s, past a page's
	// 4 s). A forger spends the look-ups; its request starts a read at r and stops waiting after 4 s; 10 s later (n8n's
	// clock: the next read is due) while that read still runs, it sends more. Promise (security page): one read at a
	// time per account, at most every 10 s, each page paid by the account's budget: no second read overlaps the first.
	it('held: a read due while the previous one still runs does not start a second', async () => {
		const { triggers } = await rotatedTriggers(1);
		const [trigger] = triggers;
		advance(60_000);
		sim.control.generateBookings({ count: 150 });
		advance(60_000);
		for (let index = 0; index < 25; index++) await forgeAt(trigger);
		advance(10_000);
		for (let index = 0; index < 2; index++) await forgeAt(trigger);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: 5_000, query: { cursor: '*' } });
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: 3_000, phase: 'after', query: { sort: '*' } });
		const readsBefore = firstPages(sentSince(0)).length;
		advance(10_000);
		for (let index = 0; index < 2; index++) await forgeAt(trigger); // refilled look-ups
		expect(await forgeAt(trigger)).toBe(401); // starts the read (waits 4 s)
		const started = firstPages(sentSince(0)).length;
		advance(10_000);
		for (let index = 0; index < 2; index++) await forgeAt(trigger);
		expect(await forgeAt(trigger)).toBe(401); // due by n8n's clock, the first read still running
		const overlapping = firstPages(sentSince(0)).length;
		await realSleep(5_000);
		sim.control.clearFaults();
		process.stdout.write(`[rt9 overlap] first pages before ${readsBefore}, after the first ${started}, while it ran ${overlapping}\n`);
		expect(started).toBe(readsBefore + 1);
		expect(overlapping).toBe(started);
	}, 120_000);
});
