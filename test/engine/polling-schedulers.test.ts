/**
 * Where the polling trigger starts, on both of n8n 2.41's poll schedulers (test/harness/poller.ts says how each is
 * modelled): n8n's in-memory poller polls at activation, while the durable scheduler's first scheduled poll comes
 * at the schedule's next occurrence — a minute, an hour or a day later, or after a restart — and n8n commits the
 * activation poll's cursor only if it emitted. No change made after activation may be taken for history.
 */
import { describe, expect, it } from 'vitest';

import { freeSlots, useTestSimulator } from '../harness/fixtures.ts';
import { ALL_EVENTS, bookingId, kindsOf, pollingFixtures } from '../harness/polling-fixtures.ts';
import type { PollScheduler } from '../harness/poller.ts';

const sim = useTestSimulator();
const { poller, later, book } = pollingFixtures(sim);

describe.each<PollScheduler>(['memory', 'durable'])('%s scheduler: no change made after activation is history', (scheduler) => {
	const activated = async () => {
		const trigger = poller(ALL_EVENTS, undefined, { scheduler });
		expect(await trigger.poll()).toEqual([]); // the poll n8n runs at activation: nothing of the history
		return trigger;
	};

	it('the first scheduled poll, an hour after activation, reports every change made since, once', async () => {
		await later();
		const before = await book(sim, 'intro-call', 5);
		const trigger = await activated();
		await later(5);
		const made = await book(sim);
		await later(20);
		sim.control.cancel(before.id, { by: 'host' });
		await later(3_600);
		expect(kindsOf(await trigger.poll())).toEqual([
			['booking.created', made.id],
			['booking.cancelled', before.id],
		]);
		expect(await trigger.poll()).toEqual([]);
	});

	it('n8n restarts before the first scheduled poll: the changes made since activation are reported', async () => {
		const trigger = await activated();
		await later();
		const made = await book(sim);
		trigger.restart();
		await later(600);
		const second = await book(sim, 'intro-call', 1);
		expect(kindsOf(await trigger.poll())).toEqual([
			['booking.created', made.id],
			['booking.created', second.id],
		]);
	});

	it('the first scheduled polls fail (HTTP 500, no answer): the one that succeeds reports what changed since activation', async () => {
		const trigger = await activated();
		await later();
		const made = await book(sim);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'status', status: 500 });
		await expect(trigger.poll()).rejects.toThrow(/500/);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'drop' });
		await expect(trigger.poll()).rejects.toThrow(/Could not reach/);
		await later(3_600);
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', made.id]]);
	});

	it('what the trigger knew at activation still counts: paid is created, moved is rescheduled with previous', async () => {
		await later();
		const paid = await book(sim, 'career-coaching');
		const upcoming = await book(sim, 'intro-call', 2);
		await later(3_600);
		const trigger = await activated();
		await later();
		sim.control.payment(paid.id, { outcome: 'succeeded' });
		const [slot] = (await freeSlots(sim, 'intro-call')).slice(-1);
		sim.control.reschedule(upcoming.id, { start: slot, by: 'booker' });
		await later(3_600);
		const items = await trigger.poll();
		expect(kindsOf(items)).toEqual([
			['booking.created', paid.id],
			['booking.rescheduled', upcoming.id],
		]);
		expect(items[1].json.previous).toEqual({ start: upcoming.start, end: upcoming.end });
	});

	it('deactivated before its first scheduled poll and published again: what changed since the first activation is reported', async () => {
		const first = await activated();
		await later();
		const whileActive = await book(sim);
		await later(600);
		const again = poller(ALL_EVENTS, first.savedStaticData, { scheduler, workflowId: first.workflowId });
		expect(kindsOf(await again.poll())).toEqual([['booking.created', whileActive.id]]);
		await later();
		const made = await book(sim, 'intro-call', 1);
		expect(kindsOf(await again.poll())).toEqual([['booking.created', made.id]]);
	});
});

describe("n8n's poll budget (durable scheduler: N8N_SCHEDULER_POLL_TIMEOUT less a margin)", () => {
	it('a poll slower than its budget stops in time and keeps what it read; the next polls go on; nothing twice', async () => {
		const trigger = poller(ALL_EVENTS, undefined, { scheduler: 'durable', pollBudgetMs: 3_000 });
		await trigger.poll();
		await later();
		const { ids } = sim.control.generateBookings({ count: 450 });
		// Every page of the listing takes 0.8 s: a poll has time for three or four of the five pages.
		sim.control.addFault({ method: 'GET', path: '/bookings', query: { sort: '-updatedAt' }, count: 1_000, kind: 'latency', latencyMs: 800 });
		const emitted: string[] = [];
		const durations: number[] = [];
		for (let poll = 0; poll < 8 && emitted.length < ids.length; poll++) {
			const started = Date.now();
			emitted.push(...(await trigger.poll()).map(bookingId));
			durations.push(Date.now() - started);
		}
		sim.control.clearFaults();
		expect(new Set(emitted)).toEqual(new Set(ids));
		expect(emitted).toHaveLength(ids.length);
		expect(durations.filter((ms) => ms > 3_000)).toEqual([]);
		expect(durations.length).toBeGreaterThan(1);
	}, 60_000);

	it('a 429 whose Retry-After ends after the budget fails the poll at once, telling n8n how long to wait', async () => {
		const trigger = poller(ALL_EVENTS, undefined, { scheduler: 'durable', pollBudgetMs: 5_000 });
		await trigger.poll();
		await later();
		const made = await book(sim);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'rate_limit', retryAfterSeconds: 20 });
		const started = Date.now();
		await expect(trigger.poll()).rejects.toMatchObject({ httpCode: '429', failure: { cause: 'rate-limited', retryAfterMs: 20_000 } });
		expect(Date.now() - started).toBeLessThan(2_000);
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', made.id]]);
	});

	it('a 429 whose Retry-After ends within the budget is waited out inside the poll', async () => {
		const trigger = poller(ALL_EVENTS, undefined, { scheduler: 'durable', pollBudgetMs: 5_000 });
		await trigger.poll();
		await later();
		const made = await book(sim);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'rate_limit', retryAfterSeconds: 1 });
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', made.id]]);
	});
});

describe("n8n's poll budget: a service too slow for it", () => {
	it('a budget that fits one page a poll: the poll fails saying so (n8n backs off), never goes round in circles quietly', async () => {
		const trigger = poller(ALL_EVENTS, undefined, { scheduler: 'durable', pollBudgetMs: 2_000 });
		await trigger.poll();
		await later();
		sim.control.generateBookings({ count: 450 });
		sim.control.addFault({ method: 'GET', path: '/bookings', query: { sort: '-updatedAt' }, count: 1_000, kind: 'latency', latencyMs: 1_200 });
		const outcomes: string[] = [];
		for (let poll = 0; poll < 12; poll++) {
			try {
				outcomes.push(String((await trigger.poll()).length));
			} catch (error) {
				outcomes.push((error as Error).message);
			}
		}
		sim.control.clearFaults();
		expect(outcomes).toContain('The Booking Service answered too slowly for one poll');
		// Once the service is fast again, every change arrives, once.
		let reported = outcomes.filter((outcome) => /^\d+$/.test(outcome)).reduce((sum, count) => sum + Number(count), 0);
		for (let poll = 0; poll < 4; poll++) reported += (await trigger.poll()).length;
		expect(reported).toBe(450);
	}, 60_000);
});
