import { describe, expect, it } from 'vitest';
import type { SeenEventIds } from '../../nodes/BookingServiceTrigger/dedupe.ts';
import {
	checkAndRemember,
	DEFAULT_DEDUPE_LIMITS,
	InMemorySeenEvents,
	toSeenEventIds,
} from '../../nodes/BookingServiceTrigger/dedupe.ts';

const hour = 60 * 60 * 1000;
const t0 = Date.UTC(2026, 0, 1);
const idsOf = (seen: SeenEventIds) => seen.map(([id]) => id);

describe('checkAndRemember', () => {
	it('reports the first sighting as new and the second as a duplicate', () => {
		const first = checkAndRemember([], 'evt_a', t0);
		expect(first).toEqual({ duplicate: false, seen: [['evt_a', t0]] });
		const second = checkAndRemember(first.seen, 'evt_a', t0 + 1000);
		expect(second.duplicate).toBe(true);
		// The first-seen time is kept, so a steady stream of retries cannot keep an id alive forever.
		expect(second.seen).toEqual([['evt_a', t0]]);
	});

	it('returns the record itself for a duplicate, so static data is not written again', () => {
		let seen: SeenEventIds = [];
		for (const id of ['evt_1', 'evt_2', 'evt_3']) seen = checkAndRemember(seen, id, t0).seen;
		const again = checkAndRemember(seen, 'evt_1', t0 + hour);
		expect(again.duplicate).toBe(true);
		expect(again.seen).toBe(seen);
		expect(again.seen).toEqual([
			['evt_1', t0],
			['evt_2', t0],
			['evt_3', t0],
		]);
	});

	it('never mutates its input', () => {
		const record = Object.freeze([Object.freeze(['evt_a', t0] as const)]);
		checkAndRemember(record, 'evt_b', t0);
		checkAndRemember(record, 'evt_a', t0);
		checkAndRemember(record, 'evt_c', t0 + DEFAULT_DEDUPE_LIMITS.maxAgeMs + 1);
		expect(record).toEqual([['evt_a', t0]]);
	});

	it('forgets ids older than the age limit', () => {
		const { seen } = checkAndRemember([], 'evt_a', t0);
		const later = t0 + DEFAULT_DEDUPE_LIMITS.maxAgeMs + 1;
		expect(checkAndRemember(seen, 'evt_a', later).duplicate).toBe(false);
		expect(checkAndRemember(seen, 'evt_b', later).seen).toEqual([['evt_b', later]]);
		// Exactly at the limit an id still counts.
		expect(checkAndRemember(seen, 'evt_a', t0 + DEFAULT_DEDUPE_LIMITS.maxAgeMs).duplicate).toBe(true);
	});

	it('drops only the expired ids and keeps the rest in arrival order', () => {
		const limits = { maxEntries: 10, maxAgeMs: 2 * hour };
		let seen: SeenEventIds = [];
		for (const [index, id] of ['evt_1', 'evt_2', 'evt_3'].entries()) {
			seen = checkAndRemember(seen, id, t0 + index * hour, limits).seen;
		}
		const { seen: pruned } = checkAndRemember(seen, 'evt_4', t0 + 3 * hour, limits);
		expect(pruned).toEqual([
			['evt_2', t0 + hour],
			['evt_3', t0 + 2 * hour],
			['evt_4', t0 + 3 * hour],
		]);
	});

	it('treats an expired id as new even when a clock set back left it behind fresher ones', () => {
		const record: SeenEventIds = [
			['evt_fresh', t0],
			['evt_stale', t0 - 2 * DEFAULT_DEDUPE_LIMITS.maxAgeMs],
		];
		const outcome = checkAndRemember(record, 'evt_stale', t0);
		expect(outcome).toEqual({
			duplicate: false,
			seen: [
				['evt_fresh', t0],
				['evt_stale', t0],
			],
		});
	});

	it('keeps at most maxEntries ids, evicting the oldest', () => {
		const limits = { maxEntries: 3, maxAgeMs: 24 * hour };
		let seen: SeenEventIds = [];
		for (const id of ['evt_1', 'evt_2', 'evt_3', 'evt_4']) seen = checkAndRemember(seen, id, t0, limits).seen;
		expect(idsOf(seen)).toEqual(['evt_2', 'evt_3', 'evt_4']);
		expect(checkAndRemember(seen, 'evt_1', t0, limits).duplicate).toBe(false);
	});

	it('stays bounded under the default limits however many ids arrive', () => {
		let seen: SeenEventIds = [];
		for (let index = 0; index < DEFAULT_DEDUPE_LIMITS.maxEntries + 50; index += 1) {
			seen = checkAndRemember(seen, `evt_${index}`, t0 + index).seen;
		}
		expect(seen).toHaveLength(DEFAULT_DEDUPE_LIMITS.maxEntries);
		expect(idsOf(seen)[0]).toBe('evt_50');
		expect(checkAndRemember(seen, `evt_${DEFAULT_DEDUPE_LIMITS.maxEntries + 49}`, t0).duplicate).toBe(true);
		expect(checkAndRemember(seen, 'evt_49', t0).duplicate).toBe(false);
	});

	it('evicts in arrival order: a duplicate keeps its place and its first-seen time', () => {
		const limits = { maxEntries: 2, maxAgeMs: 24 * hour };
		let seen = checkAndRemember([], 'evt_1', t0, limits).seen;
		seen = checkAndRemember(seen, 'evt_2', t0, limits).seen;
		seen = checkAndRemember(seen, 'evt_1', t0, limits).seen;
		seen = checkAndRemember(seen, 'evt_3', t0, limits).seen;
		expect(idsOf(seen)).toEqual(['evt_2', 'evt_3']);
	});

	it('handles ids that look like object internals', () => {
		const { seen } = checkAndRemember([], '__proto__', t0);
		expect(checkAndRemember(seen, '__proto__', t0).duplicate).toBe(true);
		expect(Object.getPrototypeOf(seen)).toBe(Array.prototype);
		const restored = toSeenEventIds(JSON.parse(JSON.stringify(seen)));
		expect(checkAndRemember(restored, '__proto__', t0).duplicate).toBe(true);
	});
});

describe('toSeenEventIds', () => {
	it('reads a stored record back and drops what is not an id → time entry', () => {
		expect(
			toSeenEventIds([
				['evt_a', t0],
				['evt_b', 'x'],
				['evt_c', null],
				['evt_d', Number.NaN],
				['evt_e'],
				['evt_f', t0, 'extra'],
				[42, t0],
				'evt_g',
				null,
				{ evt_h: t0 },
			]),
		).toEqual([['evt_a', t0]]);
	});

	it('returns a valid record as it is, without a copy', () => {
		const record = [
			['evt_a', t0],
			['evt_b', t0 + 1],
		];
		expect(toSeenEventIds(record)).toBe(record);
	});

	it('reads the object format of earlier versions, dropping what is not an id → time entry', () => {
		expect(toSeenEventIds({ evt_a: t0, evt_b: 'x', evt_c: null, evt_d: Number.NaN })).toEqual([['evt_a', t0]]);
	});

	it('puts an old record in first-seen order, so the oldest id is still the first to go', () => {
		// The old format moved an id that arrived again to the end, keeping its first-seen time.
		const old = JSON.parse(JSON.stringify({ evt_2: t0 + 2, evt_3: t0 + 3, evt_1: t0 + 1 })) as unknown;
		const seen = toSeenEventIds(old);
		expect(seen).toEqual([
			['evt_1', t0 + 1],
			['evt_2', t0 + 2],
			['evt_3', t0 + 3],
		]);
		const limits = { maxEntries: 3, maxAgeMs: 24 * hour };
		expect(checkAndRemember(seen, 'evt_3', t0 + 4, limits).duplicate).toBe(true);
		expect(idsOf(checkAndRemember(seen, 'evt_4', t0 + 4, limits).seen)).toEqual(['evt_2', 'evt_3', 'evt_4']);
	});

	it('applies the age limit to ids read from an old record', () => {
		const seen = toSeenEventIds({ evt_old: t0, evt_new: t0 + 2 * hour });
		const later = t0 + DEFAULT_DEDUPE_LIMITS.maxAgeMs + hour;
		expect(checkAndRemember(seen, 'evt_old', later).duplicate).toBe(false);
		expect(checkAndRemember(seen, 'evt_new', later).duplicate).toBe(true);
		expect(checkAndRemember(seen, 'evt_x', later).seen).toEqual([
			['evt_new', t0 + 2 * hour],
			['evt_x', later],
		]);
	});

	it('turns anything else into an empty record', () => {
		for (const value of [undefined, null, 'evt_a', 42, ['evt_a'], {}, []]) expect(toSeenEventIds(value)).toEqual([]);
	});

	it('survives a JSON round trip, as static data does', () => {
		const { seen } = checkAndRemember([], 'evt_a', t0);
		const restored = toSeenEventIds(JSON.parse(JSON.stringify(seen)));
		expect(checkAndRemember(restored, 'evt_a', t0).duplicate).toBe(true);
	});
});

describe('InMemorySeenEvents', () => {
	it('keeps one record per scope', () => {
		const store = new InMemorySeenEvents(10);
		expect(store.checkAndRemember('sub_a', 'evt_1', t0)).toBe(false);
		expect(store.checkAndRemember('sub_b', 'evt_1', t0)).toBe(false);
		expect(store.checkAndRemember('sub_a', 'evt_1', t0)).toBe(true);
	});

	it('bounds the number of scopes, forgetting the least recently used', () => {
		const store = new InMemorySeenEvents(2);
		store.checkAndRemember('sub_a', 'evt_1', t0);
		store.checkAndRemember('sub_b', 'evt_1', t0);
		store.checkAndRemember('sub_a', 'evt_2', t0);
		store.checkAndRemember('sub_c', 'evt_1', t0);
		expect(store.checkAndRemember('sub_a', 'evt_1', t0)).toBe(true);
		expect(store.checkAndRemember('sub_b', 'evt_1', t0)).toBe(false);
	});

	it('applies the age and size limits inside each scope', () => {
		const store = new InMemorySeenEvents(5, { maxEntries: 1, maxAgeMs: hour });
		store.checkAndRemember('sub', 'evt_1', t0);
		store.checkAndRemember('sub', 'evt_2', t0);
		expect(store.checkAndRemember('sub', 'evt_1', t0)).toBe(false);
		expect(store.checkAndRemember('sub', 'evt_1', t0 + 2 * hour)).toBe(false);
	});

	it('evicts in arrival order, keeping the first-seen time of a duplicate', () => {
		const store = new InMemorySeenEvents(5, { maxEntries: 2, maxAgeMs: hour });
		store.checkAndRemember('sub', 'evt_1', t0);
		store.checkAndRemember('sub', 'evt_2', t0 + 1);
		expect(store.checkAndRemember('sub', 'evt_1', t0 + 2)).toBe(true);
		store.checkAndRemember('sub', 'evt_3', t0 + 3);
		expect(store.checkAndRemember('sub', 'evt_2', t0 + 4)).toBe(true);
		expect(store.checkAndRemember('sub', 'evt_3', t0 + 5)).toBe(true);
		// evt_1 was evicted as the oldest when evt_3 came, although it was seen again after evt_2.
		expect(store.checkAndRemember('sub', 'evt_1', t0 + 6)).toBe(false);
	});

	it('expires ids by age, the oldest first, and counts an id at the limit as seen', () => {
		const store = new InMemorySeenEvents(5, { maxEntries: 10, maxAgeMs: hour });
		store.checkAndRemember('sub', 'evt_1', t0);
		store.checkAndRemember('sub', 'evt_2', t0 + hour / 2);
		expect(store.checkAndRemember('sub', 'evt_1', t0 + hour)).toBe(true);
		expect(store.checkAndRemember('sub', 'evt_1', t0 + hour + 1)).toBe(false);
		expect(store.checkAndRemember('sub', 'evt_2', t0 + hour + 1)).toBe(true);
	});

	it('counts an id from its first sighting, however often it comes again', () => {
		const store = new InMemorySeenEvents(5, { maxEntries: 10, maxAgeMs: hour });
		store.checkAndRemember('sub', 'evt_1', t0);
		expect(store.checkAndRemember('sub', 'evt_1', t0 + hour / 2)).toBe(true);
		expect(store.checkAndRemember('sub', 'evt_1', t0 + hour + 1)).toBe(false);
	});

	it('treats an expired id as new even when a clock set back left it behind fresher ones', () => {
		const store = new InMemorySeenEvents(5, { maxEntries: 10, maxAgeMs: hour });
		store.checkAndRemember('sub', 'evt_fresh', t0 + 3 * hour);
		store.checkAndRemember('sub', 'evt_stale', t0);
		expect(store.checkAndRemember('sub', 'evt_stale', t0 + 3 * hour)).toBe(false);
		expect(store.checkAndRemember('sub', 'evt_stale', t0 + 3 * hour)).toBe(true);
		expect(store.checkAndRemember('sub', 'evt_fresh', t0 + 3 * hour)).toBe(true);
	});

	it('stays bounded under the default limits however many ids arrive', () => {
		const store = new InMemorySeenEvents(1);
		const { maxEntries } = DEFAULT_DEDUPE_LIMITS;
		for (let index = 0; index < maxEntries + 50; index += 1) store.checkAndRemember('sub', `evt_${index}`, t0 + index);
		expect(store.checkAndRemember('sub', `evt_${maxEntries + 49}`, t0 + maxEntries + 50)).toBe(true);
		expect(store.checkAndRemember('sub', 'evt_50', t0 + maxEntries + 50)).toBe(true);
		// evt_49 was the newest to be evicted; asking for it records it anew and evicts evt_50.
		expect(store.checkAndRemember('sub', 'evt_49', t0 + maxEntries + 50)).toBe(false);
		expect(store.checkAndRemember('sub', 'evt_50', t0 + maxEntries + 50)).toBe(false);
	});
});
