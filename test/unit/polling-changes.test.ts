/**
 * The polling trigger's change detection as plain data: every transition, equal timestamps, the overlap, bookings
 * listed out of order or twice, many pages at once, the bounds, and a restart after quiet and after emitting polls.
 */
import { describe, expect, it } from 'vitest';

import { detectChanges, emptyState, updatedSinceFor } from '../../nodes/BookingServicePollingTrigger/changes.ts';
import type { ListedBooking, PollState } from '../../nodes/BookingServicePollingTrigger/changes.ts';
import {
	decodeState,
	encodeState,
	keyOf,
	MAX_IN_FLIGHT,
	MAX_IN_OVERLAP,
	MAX_RECENT,
	MAX_UPCOMING,
	OVERLAP_MS,
	trimKnown,
} from '../../nodes/BookingServicePollingTrigger/known.ts';

const T0 = Date.parse('2026-03-02T09:00:00Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
const id = (n: number) => n.toString(16).padStart(24, '0');

function booking(n: number, updatedSecond: number, extra: Partial<ListedBooking> = {}): ListedBooking {
	return {
		id: id(n),
		status: 'confirmed',
		start: '2026-04-01T10:00:00.000Z',
		end: '2026-04-01T10:30:00.000Z',
		createdAt: at(updatedSecond),
		updatedAt: at(updatedSecond),
		...extra,
	};
}

/** A trigger that started watching at T0 with nothing seen yet. */
const started = (): PollState => emptyState(at(0), at(0));

const types = (result: ReturnType<typeof detectChanges>) => result.events.map((event) => event.eventType);

describe('transitions', () => {
	it('a confirmed booking made after the trigger started is created; later changes are told apart', () => {
		let state = started();
		const first = detectChanges(state, [booking(1, 10)]);
		expect(types(first)).toEqual(['booking.created']);
		state = first.state;

		const moved = detectChanges(state, [
			booking(1, 20, { createdAt: at(10), start: '2026-04-02T10:00:00.000Z', end: '2026-04-02T10:30:00.000Z' }),
		]);
		expect(moved.events).toEqual([
			expect.objectContaining({
				eventType: 'booking.rescheduled',
				previous: { start: '2026-04-01T10:00:00.000Z', end: '2026-04-01T10:30:00.000Z' },
			}),
		]);
		state = moved.state;

		const noted = detectChanges(state, [booking(1, 30, { createdAt: at(10), start: '2026-04-02T10:00:00.000Z', end: '2026-04-02T10:30:00.000Z' })]);
		expect(types(noted)).toEqual(['booking.updated']);
		expect(noted.events[0]).not.toHaveProperty('previous');
	});

	it.each([
		['cancelled', 'booking.cancelled'],
		['no_show', 'booking.no_show'],
		['completed', 'booking.completed'],
	])('status → %s is %s, seen before or not', (status, expected) => {
		const seen = detectChanges(started(), [booking(1, 10)]).state;
		expect(types(detectChanges(seen, [booking(1, 20, { status, createdAt: at(10) })]))).toEqual([expected]);
		expect(types(detectChanges(started(), [booking(2, 20, { status, createdAt: at(-999) })]))).toEqual([expected]);
	});

	it('a booking let go since it was cancelled, changed again (a refund, a note): updated, never a second cancelled', () => {
		const forgotten = { ...started(), forgotten: at(50) };
		const cancelled = (n: number, cancelledSecond: number) =>
			booking(n, 60, { status: 'cancelled', createdAt: at(-999), cancellation: { at: at(cancelledSecond) } });
		expect(types(detectChanges(forgotten, [cancelled(1, 40)]))).toEqual(['booking.updated']); // reported, then let go
		expect(types(detectChanges(forgotten, [cancelled(2, -10)]))).toEqual(['booking.updated']); // before activation
		expect(types(detectChanges(forgotten, [cancelled(3, 55)]))).toEqual(['booking.cancelled']); // new
	});

	it('awaiting payment → confirmed is created (paid event types), with the in-flight booking remembered at start', () => {
		const state = started();
		state.known[keyOf(id(1))] = encodeState({
			status: 'awaiting_payment',
			startMs: Date.parse('2026-04-01T10:00:00.000Z'),
			endMs: Date.parse('2026-04-01T10:30:00.000Z'),
			updatedAt: at(-500),
		});
		expect(types(detectChanges(state, [booking(1, 10, { createdAt: at(-500) })]))).toEqual(['booking.created']);
	});

	it('made after the trigger started, not remembered: created if it shows it was never let go while confirmed', () => {
		// Others let go since (forgotten) no longer matter: the booking itself tells.
		const state = { ...started(), forgotten: at(50) };
		// Changed (paid, moved) before its start: kept while upcoming, so never seen confirmed before.
		expect(types(detectChanges(state, [booking(1, 60, { createdAt: at(40) })]))).toEqual(['booking.created']);
		// Unchanged since it was made (an import of past bookings): first seen now.
		const past = { start: at(-7_200), end: at(-5_400) };
		expect(types(detectChanges(state, [booking(2, 60, { ...past, createdAt: at(60) })]))).toEqual(['booking.created']);
		// Changed after its start: it may have been reported and let go once its time passed; never a second created.
		expect(types(detectChanges(state, [booking(3, 60, { ...past, createdAt: at(40) })]))).toEqual(['booking.updated']);
	});

	it('the newest change among bookings let go is kept in the state (no booking let go was made later)', () => {
		const many = Array.from({ length: MAX_RECENT + 10 }, (_, index) =>
			booking(index + 1, index * 60, { start: '2026-01-01T10:00:00.000Z', end: '2026-01-01T10:30:00.000Z' }),
		);
		const { state } = detectChanges(started(), many);
		// 2,010 past bookings: three inside the overlap and 2,000 others kept, so the seven oldest go.
		expect(state.forgotten).toBe(at(6 * 60));
	});

	it('never seen, made before the trigger started: updated — never a reschedule with an invented previous time', () => {
		const result = detectChanges(started(), [booking(1, 10, { createdAt: at(-86_400) })]);
		expect(types(result)).toEqual(['booking.updated']);
		expect(result.events[0]).not.toHaveProperty('previous');
	});

	it('made and cancelled between two polls: one cancelled event (the state the listing shows)', () => {
		expect(types(detectChanges(started(), [booking(1, 10, { status: 'cancelled' })]))).toEqual(['booking.cancelled']);
	});
});

describe('each change once', () => {
	it('the overlap: the next poll sees the same change again and skips it', () => {
		const first = detectChanges(started(), [booking(1, 10), booking(2, 20)]);
		expect(first.events).toHaveLength(2);
		expect(updatedSinceFor(first.state)).toBe(new Date(Date.parse(at(20)) - OVERLAP_MS).toISOString());

		const again = detectChanges(first.state, [booking(2, 20), booking(1, 10)]);
		expect(again.events).toEqual([]);
	});

	it('equal timestamps: two bookings changed in the same millisecond are both reported, once each', () => {
		const first = detectChanges(started(), [booking(1, 10), booking(2, 10)]);
		expect(first.events.map((event) => event.booking.id)).toEqual([id(1), id(2)]);
		const late = detectChanges(first.state, [booking(1, 10), booking(2, 10), booking(3, 10)]);
		expect(late.events.map((event) => event.booking.id)).toEqual([id(3)]); // committed late, same timestamp
	});

	it('out of order and repeated in one listing: oldest change first, each once', () => {
		const result = detectChanges(started(), [booking(3, 30), booking(1, 10), booking(3, 30), booking(2, 20)]);
		expect(result.events.map((event) => event.booking.id)).toEqual([id(1), id(2), id(3)]);
		expect(result.state.cursor).toBe(at(30));
	});

	it('a different state stamped earlier than the one seen (the service clock stepped back) is a change', () => {
		const seen = detectChanges(started(), [booking(1, 50)]).state;
		const back = detectChanges(seen, [booking(1, 49, { status: 'cancelled', createdAt: at(50) })]);
		expect(types(back)).toEqual(['booking.cancelled']);
		expect(detectChanges(back.state, [booking(1, 49, { status: 'cancelled', createdAt: at(50) })]).events).toEqual([]);
	});

	it('two changes stamped with the same updatedAt: both reported, with different event ids', () => {
		const first = detectChanges(started(), [booking(1, 10)]);
		const second = detectChanges(first.state, [booking(1, 10, { status: 'cancelled' })]);
		expect(types(second)).toEqual(['booking.cancelled']);
		expect(second.events[0].eventId).not.toBe(first.events[0].eventId);
	});

	it('event ids are stable: the same change gives the same id on every poll and after a restart', () => {
		const a = detectChanges(started(), [booking(1, 10)]).events[0].eventId;
		const b = detectChanges(started(), [booking(1, 10)]).events[0].eventId;
		expect(a).toBe(b);
		expect(a).toMatch(/^evt_poll_[0-9a-f]{24}$/);
	});

	it('a backlog of many pages (10,000 changes) is reported completely, in order, each once', () => {
		const backlog = Array.from({ length: 10_000 }, (_, index) => booking(index + 1, index + 1));
		const result = detectChanges(started(), backlog.reverse());
		expect(result.events).toHaveLength(10_000);
		expect(new Set(result.events.map((event) => event.eventId)).size).toBe(10_000);
		expect(result.events[0].booking.id).toBe(id(1));
		expect(result.state.cursor).toBe(at(10_000));
	});
});

describe('restarts (n8n saves static data only after a poll that emitted)', () => {
	/** What n8n would have saved: the state as JSON, at the last emitting poll. */
	const saved = (state: PollState) => JSON.parse(JSON.stringify(state)) as PollState;

	it('after quiet polls: asking again from the saved position repeats nothing and loses nothing', () => {
		const emitted = detectChanges(started(), [booking(1, 10)]);
		const onDisk = saved(emitted.state);
		// Quiet polls in memory: booking 1 changes in a way nobody selected (updated), booking 2 is made.
		const quiet = detectChanges(emitted.state, [booking(1, 20, { createdAt: at(10) })]);
		expect(types(quiet)).toEqual(['booking.updated']);
		// Restart: the quiet poll's progress is gone; the service lists the current state since the saved cursor.
		const afterRestart = detectChanges(onDisk, [booking(1, 20, { createdAt: at(10) }), booking(2, 30)]);
		expect(afterRestart.events.map((event) => [event.booking.id, event.eventType])).toEqual([
			[id(1), 'booking.updated'], // the same change, the same event id: filtered again, or deduped downstream
			[id(2), 'booking.created'],
		]);
		expect(afterRestart.events[0].eventId).toBe(quiet.events[0].eventId);
	});

	it('after an emitting poll: nothing already reported is reported again', () => {
		const emitted = detectChanges(started(), [booking(1, 10), booking(2, 20)]);
		const afterRestart = detectChanges(saved(emitted.state), [booking(1, 10), booking(2, 20)]);
		expect(afterRestart.events).toEqual([]);
	});
});

describe('bounds', () => {
	const entries = (state: PollState) => Object.keys(state.known).length;

	it('keeps every booking changed inside the overlap, and of the older ones the MAX_RECENT changed last', () => {
		// One change a minute, all in the past: only the last two or three are inside the two-minute overlap.
		const many = Array.from({ length: MAX_RECENT + 500 }, (_, index) =>
			booking(index + 1, index * 60, { start: '2026-01-01T10:00:00.000Z', end: '2026-01-01T10:30:00.000Z' }),
		);
		const { state } = detectChanges(started(), many);
		expect(entries(state)).toBeLessThanOrEqual(MAX_RECENT + 3);
		expect(state.known[keyOf(id(MAX_RECENT + 500))]).toBeDefined();
		expect(state.known[keyOf(id(1))]).toBeUndefined();
	});

	it('keeps bookings in flight and upcoming bookings beyond MAX_RECENT, each kind up to its own bound', () => {
		const cursor = at(1_000_000);
		const known: Record<string, string> = {};
		const put = (n: number, status: string, start: string) =>
			(known[keyOf(id(n))] = encodeState({ status, startMs: Date.parse(start), endMs: Date.parse(start) + 1_800_000, updatedAt: at(n) }));
		put(1, 'awaiting_payment', '2026-01-01T10:00:00.000Z');
		put(2, 'confirmed', '2027-01-01T10:00:00.000Z'); // upcoming
		for (let n = 10; n < 10 + MAX_RECENT + 100; n++) put(n, 'completed', '2026-01-01T10:00:00.000Z');
		const trimmed = trimKnown(known, Date.parse(cursor));
		expect(trimmed[keyOf(id(1))]).toBeDefined();
		expect(trimmed[keyOf(id(2))]).toBeDefined();
		expect(Object.keys(trimmed)).toHaveLength(MAX_RECENT + 2);
	});

	it('at its bounds the record stays under 1.5 MB: measured, and every kind capped', () => {
		const known: Record<string, string> = {};
		let n = 0;
		const put = (status: string, start: string, second: number) =>
			(known[keyOf(id(++n))] = encodeState({ status, startMs: Date.parse(start), endMs: Date.parse(start) + 1_800_000, updatedAt: at(second) }));
		for (let i = 0; i < MAX_IN_FLIGHT + 10; i++) put('awaiting_payment', '2026-01-01T10:00:00.000Z', 0);
		for (let i = 0; i < MAX_UPCOMING + 10; i++) put('confirmed', '2027-01-01T10:00:00.000Z', 0);
		for (let i = 0; i < MAX_RECENT + 10; i++) put('completed', '2026-01-01T10:00:00.000Z', 0);
		const trimmed = trimKnown(known, Date.parse(at(1_000)));
		expect(Object.keys(trimmed)).toHaveLength(MAX_IN_FLIGHT + MAX_UPCOMING + MAX_RECENT);
		const bytes = JSON.stringify(trimmed).length;
		// Measured: 1.46 MB for 30,500 bookings (48 bytes each; 20,000 upcoming alone about 0.96 MB). The overlap's
		// 50,000 come on top only during a burst of that many changes within two minutes, until it has settled.
		expect(bytes).toBeLessThan(1_500_000);
		expect(MAX_IN_OVERLAP).toBe(50_000);
	});

	it('more changes to read again than MAX_IN_OVERLAP: the oldest (and all stamped alike) go, and the next reading starts after them', () => {
		// A burst of past bookings within two minutes, 10 per millisecond: more than the overlap keeps.
		const past = { start: at(-7_200), end: at(-5_400) };
		const count = MAX_IN_OVERLAP + 1_000;
		const burst = Array.from({ length: count }, (_, n) => {
			const stamp = new Date(T0 + 60_000 + Math.floor(n / 10)).toISOString();
			return { ...booking(n + 1, 0, past), createdAt: stamp, updatedAt: stamp };
		});
		const { state, events } = detectChanges(started(), burst);
		expect(events).toHaveLength(count);
		const kept = Object.keys(state.known).length;
		expect(kept).toBeLessThanOrEqual(MAX_IN_OVERLAP + MAX_RECENT);
		// The next reading starts after the newest let go, so none of them is listed (and reported) again.
		const cutMs = T0 + 60_000 + Math.floor((count - MAX_IN_OVERLAP - 1) / 10);
		expect(state.settledTo).toBe(new Date(cutMs + 1).toISOString());
		expect(updatedSinceFor(state)).toBe(state.settledTo);
		const again = burst.filter((item) => Date.parse(item.updatedAt) >= cutMs + 1);
		expect(detectChanges(state, again).events).toEqual([]);
	});

	it('a state encodes and decodes exactly, whatever the status', () => {
		const state = { status: 'some_future_status', startMs: Date.parse('2026-04-01T10:00:00.000Z'), endMs: Date.parse('2026-04-01T10:45:00.000Z'), updatedAt: '2026-03-02T09:00:00.123456Z' };
		expect(decodeState(encodeState(state))).toEqual(state);
		expect(decodeState(encodeState({ ...state, status: 'no_show' }))).toEqual({ ...state, status: 'no_show' });
		const plain = { ...state, status: 'confirmed', updatedAt: '2026-03-02T09:00:00.123Z' };
		expect(encodeState(plain).length).toBeLessThan(40);
		expect(decodeState(encodeState(plain))).toEqual(plain);
		expect(decodeState('garbage')).toBeUndefined();
		// The spelling saved before (with the creation time, no longer kept) still reads.
		expect(decodeState(`c|${(1e12).toString(36)}|${(1_800_000).toString(36)}|${(9e11).toString(36)}|~${(1.1e12).toString(36)}`)).toEqual({
			status: 'confirmed',
			startMs: 1e12,
			endMs: 1e12 + 1_800_000,
			updatedAt: new Date(1.1e12).toISOString(),
		});
		expect(keyOf('0123456789abcdef01234567')).toHaveLength(16);
		expect(keyOf('not-a-contract-id')).toBe('not-a-contract-id');
	});

	it('a burst larger than MAX_RECENT inside the overlap is still reported once (the next poll repeats none)', () => {
		const burst = Array.from({ length: 10_000 }, (_, index) =>
			booking(index + 1, 10, { start: '2026-01-01T10:00:00.000Z', end: '2026-01-01T10:30:00.000Z' }),
		);
		const first = detectChanges(started(), burst);
		expect(first.events).toHaveLength(10_000);
		const again = detectChanges(first.state, burst);
		expect(again.events).toEqual([]);
		expect(entries(again.state)).toBe(10_000); // all inside the overlap
		// Once the cursor moves two minutes on, the burst falls back to the cap.
		const later = detectChanges(again.state, [booking(20_000, 10 + OVERLAP_MS / 1000 + 60)]);
		expect(entries(later.state)).toBeLessThanOrEqual(MAX_RECENT + 1);
	});

	it('trimKnown() is idempotent', () => {
		const { state } = detectChanges(started(), [booking(1, 10), booking(2, 500)]);
		expect(trimKnown(trimKnown(state.known, Date.parse(at(500))), Date.parse(at(500)))).toEqual(trimKnown(state.known, Date.parse(at(500))));
	});
});
