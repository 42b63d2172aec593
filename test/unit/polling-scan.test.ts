/**
 * The polling trigger's scan over pages the test lays out itself, for orderings the simulator does not produce on
 * demand: a change committed late behind a full page of changes already seen, and chunk boundaries inside a run of
 * equal timestamps.
 */
import { describe, expect, it } from 'vitest';

import type { PollState } from '../../nodes/BookingServicePollingTrigger/changes.ts';
import { detectChanges, emptyState } from '../../nodes/BookingServicePollingTrigger/changes.ts';
import type { ListedBooking } from '../../nodes/BookingServicePollingTrigger/known.ts';
import { scanChanges } from '../../nodes/BookingServicePollingTrigger/scan.ts';
import type { PageReader } from '../../nodes/BookingServicePollingTrigger/scan.ts';

const T0 = Date.parse('2026-03-02T09:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const id = (n: number) => n.toString(16).padStart(24, '0');
const booking = (n: number, updatedMs: number): ListedBooking => ({
	id: id(n),
	status: 'confirmed',
	start: '2026-01-01T10:00:00.000Z',
	end: '2026-01-01T10:30:00.000Z',
	createdAt: at(updatedMs),
	updatedAt: at(updatedMs),
});

/** A listing of the given bookings as the service would page it: newest first, 100 a page, cursor = offset. */
function listing(bookings: ListedBooking[]): PageReader<ListedBooking> {
	const sorted = [...bookings].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || b.id.localeCompare(a.id));
	return async (from, cursor) => {
		const inRange = sorted.filter((item) => from === null || Date.parse(item.updatedAt) >= Date.parse(from));
		const offset = cursor === undefined ? 0 : Number(cursor);
		const items = inRange.slice(offset, offset + 100);
		return { items, nextCursor: offset + 100 < inRange.length ? String(offset + 100) : null };
	};
}

const never = () => false;

describe('scan', () => {
	it('a change committed late behind a full page of changes already seen is still reported', async () => {
		// 300 changes seen by the last poll, all inside the overlap; then one new change, and one committed late
		// (stamped before most of the 300, so two full pages of known changes come before it).
		const seen = Array.from({ length: 300 }, (_, index) => booking(index + 1, 1_000 + index));
		let state: PollState = detectChanges(emptyState(at(0), at(0)), seen).state;
		const fresh = booking(1_000, 5_000);
		const late = booking(1_001, 1_005);
		const result = await scanChanges(state, listing([...seen, fresh, late]), never);
		expect(result.events.map((event) => event.booking.id).sort()).toEqual([fresh.id, late.id].sort());
		state = result.state;
		expect((await scanChanges(state, listing([...seen, fresh, late]), never)).events).toEqual([]);
	});

	it('chunks inside a run of equal timestamps: each change once, oldest chunk first', async () => {
		const burst = Array.from({ length: 2_500 }, (_, index) => booking(index + 1, 1_000));
		const older = Array.from({ length: 500 }, (_, index) => booking(10_000 + index, 500));
		const limits = { chunkPages: 10, maxChanges: 1_000, maxPages: 200 };
		let state = emptyState(at(0), at(0));
		const reported: string[] = [];
		for (let poll = 0; poll < 10 && reported.length < 3_000; poll++) {
			const result = await scanChanges(state, listing([...burst, ...older]), never, limits);
			reported.push(...result.events.map((event) => event.booking.id));
			state = result.state;
		}
		expect(reported).toHaveLength(3_000);
		expect(new Set(reported).size).toBe(3_000);
		expect(reported.slice(0, 500).every((bookingId) => bookingId >= id(10_000))).toBe(true);
	});

	// Issue 31, point 4: with page cursors that are offsets (the contract does not show their format), one booking
	// re-stamped while a scan is under way shifts every position after it by one. Wherever it lands — at the edge of
	// the chunk reported last, inside a chunk not yet reported, or below the floor — no other booking's change is lost.
	it.each([
		['into the chunk read next, from the edge of the one reported last', 599, 700_500, 'reported'],
		['into a chunk not yet reported, from inside another', 700, 940_500, 'reported'],
		['newer than everything, from a chunk reported already', 10, 9_000_000, 'reported'],
		// The known limit: a change stamped below what was reported, and more than the overlap before the position.
		['older, into a chunk reported already (a clock step back beyond the overlap)', 820, 520_500, 'lost'],
	])('a booking re-stamped %s: every other change once', async (_where, index, stampedAt, itsOwnChange) => {
		// A second apart: the 1,200 changes span 20 minutes, far more than the overlap.
		const spread = Array.from({ length: 1_200 }, (_, n) => booking(n + 1, n * 1_000));
		const limits = { chunkPages: 2, maxChanges: 600, maxPages: 200 };
		const changes = (result: { events: Array<{ eventType: string; booking: ListedBooking }> }) =>
			result.events.map((event) => `${event.eventType} ${event.booking.id}`);
		const first = await scanChanges(emptyState(at(0), at(0)), listing(spread), never, limits);
		expect(first.events).toHaveLength(600); // the three oldest chunks; three more wait
		let state = first.state;
		const restamped = { ...spread[index], status: 'cancelled', updatedAt: at(stampedAt) };
		const now = spread.map((item, n) => (n === index ? restamped : item));
		const reported = changes(first);
		// The polls that finish this scan, then the next scan (from the position less the overlap).
		for (let poll = 0; poll < 6; poll++) {
			const result = await scanChanges(state, listing(now), never, limits);
			reported.push(...changes(result));
			state = result.state;
			if (state.scan === undefined) break;
		}
		reported.push(...changes(await scanChanges(state, listing(now), never, limits)));
		const others = spread.filter((_, n) => n !== index).map((item) => `booking.created ${item.id}`);
		expect(others.filter((change) => !reported.includes(change))).toEqual([]);
		expect(new Set(reported).size).toBe(reported.length);
		expect(reported.includes(`booking.cancelled ${restamped.id}`)).toBe(itsOwnChange === 'reported');
	});
});
