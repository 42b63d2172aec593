import { describe, expect, it } from 'vitest';
import {
	checkAndRemember,
	DEFAULT_DEDUPE_LIMITS,
	InMemorySeenEvents,
	toSeenEventIds,
} from '../../nodes/BookingServiceTrigger/dedupe.ts';

const hour = 60 * 60 * 1000;
const t0 = Date.UTC(2026, 0, 1);

describe('checkAndRemember', () => {
	it('reports the first sighting as new and the second as a duplicate', () => {
		const first = checkAndRemember({}, 'evt_a', t0);
		expect(first).toEqual({ duplicate: false, seen: { evt_a: t0 } });
		const second = checkAndRemember(first.seen, 'evt_a', t0 + 1000);
		expect(second.duplicate).toBe(true);
		// The first-seen time is kept, so a steady stream of retries cannot keep an id alive forever.
		expect(second.seen.evt_a).toBe(t0);
	});

	it('never mutates its input', () => {
		const record = Object.freeze({ evt_a: t0 });
		checkAndRemember(record, 'evt_b', t0);
		expect(record).toEqual({ evt_a: t0 });
	});

	it('forgets ids older than the age limit', () => {
		const { seen } = checkAndRemember({}, 'evt_a', t0);
		const later = t0 + DEFAULT_DEDUPE_LIMITS.maxAgeMs + 1;
		expect(checkAndRemember(seen, 'evt_a', later).duplicate).toBe(false);
		expect(checkAndRemember(seen, 'evt_b', later).seen).toEqual({ evt_b: later });
	});

	it('keeps at most maxEntries ids, evicting the oldest', () => {
		const limits = { maxEntries: 3, maxAgeMs: 24 * hour };
		let seen = {};
		for (const id of ['evt_1', 'evt_2', 'evt_3', 'evt_4']) seen = checkAndRemember(seen, id, t0, limits).seen;
		expect(Object.keys(seen)).toEqual(['evt_2', 'evt_3', 'evt_4']);
		expect(checkAndRemember(seen, 'evt_1', t0, limits).duplicate).toBe(false);
	});

	it('stays bounded under the default limits however many ids arrive', () => {
		let seen = {};
		for (let index = 0; index < DEFAULT_DEDUPE_LIMITS.maxEntries + 50; index += 1) {
			seen = checkAndRemember(seen, `evt_${index}`, t0 + index).seen;
		}
		expect(Object.keys(seen)).toHaveLength(DEFAULT_DEDUPE_LIMITS.maxEntries);
		expect(checkAndRemember(seen, `evt_${DEFAULT_DEDUPE_LIMITS.maxEntries + 49}`, t0).duplicate).toBe(true);
	});

	it('treats a duplicate as recently used, so it is not the next to be evicted', () => {
		const limits = { maxEntries: 2, maxAgeMs: 24 * hour };
		let seen = checkAndRemember({}, 'evt_1', t0, limits).seen;
		seen = checkAndRemember(seen, 'evt_2', t0, limits).seen;
		seen = checkAndRemember(seen, 'evt_1', t0, limits).seen;
		seen = checkAndRemember(seen, 'evt_3', t0, limits).seen;
		expect(Object.keys(seen)).toEqual(['evt_1', 'evt_3']);
	});

	it('handles ids that look like object internals', () => {
		const { seen } = checkAndRemember({}, '__proto__', t0);
		expect(checkAndRemember(seen, '__proto__', t0).duplicate).toBe(true);
		expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
	});
});

describe('toSeenEventIds', () => {
	it('reads a stored record back and drops what is not an id → time entry', () => {
		expect(toSeenEventIds({ evt_a: t0, evt_b: 'x', evt_c: null, evt_d: Number.NaN })).toEqual({ evt_a: t0 });
	});

	it('turns anything else into an empty record', () => {
		for (const value of [undefined, null, 'evt_a', 42, ['evt_a']]) expect(toSeenEventIds(value)).toEqual({});
	});

	it('survives a JSON round trip, as static data does', () => {
		const { seen } = checkAndRemember({}, 'evt_a', t0);
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
});
