/**
 * The polling trigger's "each change once" under what production brings, through n8n-core's PollContext against the
 * simulator: polls that overlap, two changes stamped in the same millisecond or by a clock that stepped back, a
 * backlog beyond the rate budget and beyond one execution, a refused page cursor, a booking in flight or upcoming
 * since before activation, Fetch Test Event for a reschedule, and bookings changed just before activation.
 */
import type { INodeExecutionData } from 'n8n-workflow';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { pollsRunning } from '../../nodes/BookingServicePollingTrigger/pollLock.ts';
import { freeSlots, requestsTo, useTestSimulator } from '../harness/fixtures.ts';
import { bookingId, eventIds, kindsOf, pollingFixtures } from '../harness/polling-fixtures.ts';

const sim = useTestSimulator();
const { poller, later, book, freezeClock } = pollingFixtures(sim);

describe('1. overlapping polls', () => {
	it('a poll slower than the interval and the next tick never report the same change twice', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const made = [await book(sim), await book(sim, 'intro-call', 1), await book(sim, 'project-sync')];
		// Every listing takes 1.5 s: the second tick starts while the first is still reading.
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 10, kind: 'latency', latencyMs: 1_500 });
		const first = trigger.poll();
		await new Promise((resolve) => setTimeout(resolve, 300));
		const second = trigger.poll();
		const [a, b] = await Promise.all([first, second]);

		expect([...a, ...b].map(bookingId).sort()).toEqual(made.map((booking) => booking.id).sort());
		expect(b).toEqual([]); // the tick that found its trigger still polling left the work to it
		expect(pollsRunning()).toBe(0);
		sim.control.clearFaults();
		expect(await trigger.poll()).toEqual([]);
	});

	it('the guard is released when a poll fails, so the next tick polls', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const made = await book(sim);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'status', status: 503 });
		await expect(trigger.poll()).rejects.toThrow(/503/);
		expect(pollsRunning()).toBe(0);
		expect((await trigger.poll()).map(bookingId)).toEqual([made.id]);
	});
});

describe('2. changes recognised by what changed, not by the timestamp alone', () => {
	it('confirmed then cancelled in the same millisecond: both events, in order', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const stamp = freezeClock();
		const made = await book(sim);
		const created = await trigger.poll();
		sim.control.cancel(made.id, { by: 'booker' });
		const cancelled = await trigger.poll();

		expect(kindsOf(created)).toEqual([['booking.created', made.id]]);
		expect(kindsOf(cancelled)).toEqual([['booking.cancelled', made.id]]);
		expect((cancelled[0].json.booking as { updatedAt: string }).updatedAt).toBe(stamp);
		expect(eventIds(created)[0]).not.toBe(eventIds(cancelled)[0]);
		expect(await trigger.poll()).toEqual([]);
	});

	it('two edits of one booking in the same millisecond are two events with two ids', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const made = await book(sim);
		await trigger.poll();
		freezeClock();
		sim.control.editNotes(made.id, { notes: 'first' });
		const [first] = await trigger.poll();
		const [slot] = (await freeSlots(sim, 'intro-call')).slice(-1);
		sim.control.reschedule(made.id, { start: slot, by: 'host' });
		const [second] = await trigger.poll();
		expect([first.json.eventType, second.json.eventType]).toEqual(['booking.updated', 'booking.rescheduled']);
		expect(second.json.previous).toEqual({ start: made.start, end: expect.any(String) });
	});

	it('a change stamped a second earlier than the last one seen (the service clock stepped back) is reported', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const made = await book(sim);
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', made.id]]);
		const { now } = sim.control.now();
		sim.control.setClock(new Date(Date.parse(now) - 1_000).toISOString());
		sim.control.cancel(made.id, { by: 'host' });
		expect(kindsOf(await trigger.poll())).toEqual([['booking.cancelled', made.id]]);
		expect(await trigger.poll()).toEqual([]);
	});
});

describe('3–4. a backlog beyond the rate budget and beyond one execution', () => {
	it('12,000 changes arrive as 5,000 + 5,000 + 2,000, oldest first, each once', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		// One per simulated second, so "oldest first" has a visible order.
		const ids: string[] = [];
		for (let batch = 0; batch < 12; batch++) {
			ids.push(...sim.control.generateBookings({ count: 1_000 }).ids);
			await later(1);
		}
		const executions = [await trigger.poll(), await trigger.poll(), await trigger.poll()];
		expect(executions.map((items) => items.length)).toEqual([5_000, 5_000, 2_000]);
		const all = executions.flat();
		expect(new Set(all.map(bookingId))).toEqual(new Set(ids));
		expect(new Set(eventIds(all)).size).toBe(12_000);
		const times = all.map((item) => Date.parse(String(item.json.eventCreatedAt)));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(await trigger.poll()).toEqual([]);
	}, 120_000);

	it('a budget of 12 requests an hour: every change arrives over several polls, none twice', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const { ids } = sim.control.generateBookings({ count: 2_500 });
		sim.control.setRateLimit({ requests: 12, perSeconds: 3_600 });
		const emitted: INodeExecutionData[] = [];
		let polls = 0;
		let failedPolls = 0;
		const perPoll: Array<number | string> = [];
		while (emitted.length < ids.length && polls < 12) {
			polls++;
			try {
				const got = await trigger.poll();
				perPoll.push(got.length);
				emitted.push(...got);
			} catch (error) {
				perPoll.push(String((error as Error).message));
				failedPolls++;
			}
			await later(3_600); // the next rate window
		}
		// The first polls find where the chunks start (a poll cut short keeps every page it passed), then the chunks
		// come oldest first; no poll failed.
		expect(perPoll.slice(0, 2)).toEqual([0, 0]);
		expect(new Set(emitted.map(bookingId))).toEqual(new Set(ids));
		expect(emitted).toHaveLength(ids.length);
		expect(polls).toBeGreaterThan(2);
		expect(failedPolls).toBe(0); // each poll that made progress ended quietly; the next continued
	}, 60_000);

	it('a page cursor the service no longer accepts: the scan starts over and repeats nothing', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const { ids } = sim.control.generateBookings({ count: 7_000 });
		const first = await trigger.poll();
		expect(first).toHaveLength(5_000);
		sim.control.addFault({ method: 'GET', path: '/bookings', query: { cursor: '*' }, count: 1, kind: 'status', status: 400, code: 'validation_failed' });
		const rest: INodeExecutionData[] = [];
		for (let poll = 0; poll < 4; poll++) rest.push(...(await trigger.poll()));
		const all = [...first, ...rest];
		expect(all).toHaveLength(7_000);
		expect(new Set(all.map(bookingId))).toEqual(new Set(ids));
	}, 60_000);
});

describe('5–6. what the trigger knows from activation on', () => {
	it('a booking awaiting payment at activation is created when paid, after 2,000+ other changes', async () => {
		await later();
		const paid = await book(sim, 'career-coaching');
		expect(paid.status).toBe('awaiting_payment');
		await later(600);
		await book(sim, 'intro-call', 3); // a later change: the paid booking is not the newest at activation
		await later(600);
		const trigger = poller();
		await trigger.poll(); // activation
		await later();
		sim.control.generateBookings({ count: 2_500 });
		await trigger.poll();
		await later(600); // the 2,500 fall out of the overlap
		await book(sim);
		await trigger.poll();
		await later();
		sim.control.payment(paid.id, { outcome: 'succeeded' });
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', paid.id]]);
	}, 60_000);

	it('a booking that goes into awaiting payment after activation is created when paid, after 2,500 newer bookings were let go', async () => {
		const trigger = poller();
		await trigger.poll(); // activation
		await later();
		const paid = await book(sim, 'career-coaching'); // left out of the listing while it awaits payment
		expect(paid.status).toBe('awaiting_payment');
		expect(await trigger.poll()).toEqual([]);
		await later();
		expect(await (sim.control.generateBookings({ count: 2_500 }), trigger.poll())).toHaveLength(2_500);
		await later(600); // the 2,500 (made after the paid booking) leave the overlap and are let go
		await book(sim);
		await trigger.poll();
		await later();
		sim.control.payment(paid.id, { outcome: 'succeeded' });
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', paid.id]]);
	}, 60_000);

	it('a booking made and paid while n8n was down is created, though 1,500 newer ones are let go in the same backlog first', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const paid = await book(sim, 'career-coaching'); // never in flight while a poll runs
		await later();
		sim.control.generateBookings({ count: 2_500 });
		await later(600);
		sim.control.generateBookings({ count: 1_000 }); // these move the position on: the 2,500 leave the overlap
		await later(600);
		sim.control.payment(paid.id, { outcome: 'succeeded' });
		const items = await trigger.poll(); // one poll, four chunks, oldest first
		expect(items).toHaveLength(3_501);
		expect(kindsOf(items.slice(-1))).toEqual([['booking.created', paid.id]]);
	}, 60_000);

	it('a reschedule of an upcoming booking made long before activation is a reschedule, with its previous times', async () => {
		await later();
		const made = await book(sim);
		await later(3_600);
		await book(sim, 'project-sync'); // the newest change at activation is another booking's
		await later(3_600);
		const trigger = poller();
		await trigger.poll(); // activation: the booking is upcoming and has not changed for two hours
		await later();
		const [slot] = (await freeSlots(sim, 'intro-call')).slice(-1);
		sim.control.reschedule(made.id, { start: slot, by: 'booker' });
		const [item] = await trigger.poll();
		expect(item.json).toMatchObject({
			eventType: 'booking.rescheduled',
			booking: { id: made.id, start: slot },
			previous: { start: made.start },
		});
	});
});

describe('7. Fetch Test Event', () => {
	it('returns a reschedule when the active trigger has seen one', async () => {
		const parameters = { events: ['booking.rescheduled'], options: {} };
		const trigger = poller(parameters);
		await trigger.poll();
		await later();
		const made = await book(sim);
		await trigger.poll();
		await later();
		const [slot] = (await freeSlots(sim, 'intro-call')).slice(-1);
		sim.control.reschedule(made.id, { start: slot, by: 'host' });
		await later();
		await book(sim, 'project-sync'); // a newer change of another kind
		await trigger.poll();

		const [sample] = await trigger.fetchTestEvent();
		expect(sample.json).toMatchObject({ eventType: 'booking.rescheduled', booking: { id: made.id }, previous: { start: made.start } });
	});

	it('returns a completed or cancelled booking as that kind, and a changed booking as updated, never as created', async () => {
		await later();
		const made = await book(sim);
		await later();
		sim.control.editNotes(made.id, { notes: 'Parking at the back' });
		const created = poller({ events: ['booking.created'], options: {} });
		const updated = poller({ events: ['booking.updated'], options: {} });
		const [createdSample] = await created.fetchTestEvent();
		const [updatedSample] = await updated.fetchTestEvent();
		expect(bookingId(createdSample)).not.toBe(made.id);
		expect(updatedSample.json).toMatchObject({ eventType: 'booking.updated', booking: { id: made.id } });
	});
});

describe('8. activation', () => {
	it('bookings changed within two minutes of each other before activation are never reported', async () => {
		await later();
		const one = await book(sim);
		await later(30);
		const two = await book(sim, 'intro-call', 1);
		await later(3_600);
		const trigger = poller();
		await trigger.poll();
		await later();
		expect(await trigger.poll()).toEqual([]);
		await later();
		sim.control.cancel(one.id, { by: 'host' });
		expect(kindsOf(await trigger.poll())).toEqual([['booking.cancelled', one.id]]);
		expect(two.id).toBeDefined();
	});
});

/** A backlog of 12,000: ten changes a second for twenty minutes of the service's clock. */
async function tenChangesASecondForTwentyMinutes(): Promise<void> {
	for (let batch = 0; batch < 120; batch++) {
		sim.control.generateBookings({ count: 100 });
		await later(10);
	}
}

describe('9. the stored state stays small (n8n writes it whole with every execution)', () => {
	afterEach(() => {
		vi.useRealTimers();
	});

	it('a burst of 5,000 is kept only until the overlap has passed; then a poll reads one page, and holds a few bookings', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const trigger = poller();
		await trigger.poll();
		await later();
		// 5,000 changes within 50 seconds, the last of them a minute before the next poll.
		for (let batch = 0; batch < 50; batch++) {
			sim.control.generateBookings({ count: 100 });
			await later(1);
		}
		expect(await trigger.poll()).toHaveLength(5_000);
		expect(trigger.storedStateBytes).toBeGreaterThan(200_000); // every change inside the overlap, to read it again
		sim.control.clearRequests();
		expect(await trigger.poll()).toEqual([]);
		expect(requestsTo(sim, '/bookings').filter((request) => !request.query.status).length).toBeGreaterThan(50);
		// Four minutes on (n8n's clock and the service's): nothing of the burst can still be committed late.
		vi.setSystemTime(Date.now() + 4 * 60_000);
		expect(await trigger.poll()).toEqual([]);
		sim.control.clearRequests();
		expect(await trigger.poll()).toEqual([]);
		expect(requestsTo(sim, '/bookings').filter((request) => !request.query.status)).toHaveLength(1);
		await later();
		const made = await book(sim);
		expect(kindsOf(await trigger.poll())).toEqual([['booking.created', made.id]]);
		expect(trigger.storedStateBytes).toBeLessThan(110_000); // the 2,000 changed last, and no more
	}, 60_000);

	it('while a backlog of 12,000 drains, the state holds what the next reading needs, not every recent change', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		await tenChangesASecondForTwentyMinutes(); // n8n was down
		const sizes: number[] = [];
		let reported = 0;
		for (let poll = 0; poll < 4; poll++) {
			reported += (await trigger.poll()).length;
			sizes.push(trigger.storedStateBytes);
		}
		expect(reported).toBe(12_000);
		// Each poll reported 5,000, saved with its execution: the 2,000 changed last and the scan, not the 2,400 changes
		// of the two minutes before its last one.
		expect(sizes.slice(0, 2).every((bytes) => bytes < 110_000)).toBe(true);
	}, 120_000);

	it('a drain that reaches its newest two minutes only three minutes after it began settles itself: then one page a poll, a small state', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const trigger = poller();
		await trigger.poll();
		await later();
		await tenChangesASecondForTwentyMinutes();
		const ids = (await trigger.poll()).map(bookingId); // the oldest 5,000, read now
		// Four minutes on (n8n's clock and the service's), the rest: its newest two minutes are read only now, after every
		// change stamped there had to be committed.
		vi.setSystemTime(Date.now() + 4 * 60_000);
		for (let poll = 0; poll < 2; poll++) ids.push(...(await trigger.poll()).map(bookingId));
		expect(new Set(ids).size).toBe(12_000);
		expect(ids).toHaveLength(12_000);
		expect(trigger.storedStateBytes).toBeLessThan(40_000); // not the 1,200 changes of the last two minutes
		sim.control.clearRequests();
		expect(await trigger.poll()).toEqual([]);
		expect(requestsTo(sim, '/bookings').filter((request) => !request.query.status)).toHaveLength(1);
	}, 120_000);
});
