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
});
