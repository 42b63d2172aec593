import { describe, expect, it } from 'vitest';
import { DEFAULT_DEDUPE_LIMITS, InMemorySeenEvents } from '../../nodes/BookingServiceTrigger/dedupe.ts';

const hour = 60 * 60 * 1000;
const t0 = Date.UTC(2026, 0, 1);

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
