import { describe, expect, it } from 'vitest';

import {
	canonicalTimeZone,
	formatCalendarDate,
	formatInZone,
	formatUtc,
	parseCalendarDate,
	parseDateTime,
	splitIntoWindows,
	startOfDay,
	timeZoneCacheSizes,
} from '../../nodes/shared/time.ts';

const utc = (text: string) => Date.parse(text);

describe('parseDateTime', () => {
	it.each([
		['2026-03-02T09:00:00Z', 'UTC', '2026-03-02T09:00:00Z'],
		['2026-03-02T09:00:00.5z', 'UTC', '2026-03-02T09:00:00.500Z'],
		['2026-03-02T18:00:00+09:00', 'UTC', '2026-03-02T09:00:00Z'],
		['2026-03-02T04:30:00-0430', 'UTC', '2026-03-02T09:00:00Z'],
		['2026-03-02T10:00:00', 'Europe/Berlin', '2026-03-02T09:00:00Z'],
		['2026-03-02 10:00', 'Europe/Berlin', '2026-03-02T09:00:00Z'],
		['2026-03-02', 'Asia/Tokyo', '2026-03-01T15:00:00Z'],
		['2026-07-02T10:00:00', 'America/New_York', '2026-07-02T14:00:00Z'],
		// A day and a time from Get Available Slots' "Local Times by Day", joined with T: the offset decides.
		['2026-12-01T19:00 UTC-05:00', 'Asia/Tokyo', '2026-12-02T00:00:00Z'],
		['2026-03-30T09:30 UTC+02:00', 'UTC', '2026-03-30T07:30:00Z'],
		['2026-03-02T09:00 UTC', 'Europe/Berlin', '2026-03-02T09:00:00Z'],
		['2026-03-02T09:00utc+05:45', 'UTC', '2026-03-02T03:15:00Z'],
	])('%s read in %s is %s', (text, zone, expected) => {
		expect(formatUtc(parseDateTime(text, zone)!)).toBe(expected);
	});

	it.each([
		'',
		'tomorrow',
		'2026-02-29T10:00:00Z',
		'2026-03-02T24:00:00Z',
		'2026-03-02T10:60',
		'2026-3-2',
		'2026-03-02T10:00:00+25:00',
		'2026-03-02T10:00 UTC 05:00',
		'2026-03-02T10:00 GMT+01:00',
	])('refuses %j', (text) => {
		expect(parseDateTime(text, 'UTC')).toBeUndefined();
	});

	it('takes JS Dates and Luxon-like DateTimes from expressions', () => {
		expect(parseDateTime(new Date('2026-03-02T09:00:00Z'), 'UTC')).toBe(
			utc('2026-03-02T09:00:00Z'),
		);
		expect(parseDateTime({ toMillis: () => utc('2026-03-02T09:00:00Z') }, 'UTC')).toBe(
			utc('2026-03-02T09:00:00Z'),
		);
		expect(parseDateTime(new Date('nope'), 'UTC')).toBeUndefined();
		expect(parseDateTime(42, 'UTC')).toBeUndefined();
	});

	it('moves a time in a spring-forward gap forward, and takes the earlier of two in a fall-back overlap', () => {
		expect(formatUtc(parseDateTime('2026-03-29T02:30:00', 'Europe/Berlin')!)).toBe(
			'2026-03-29T01:30:00Z',
		); // = 03:30 CEST
		expect(formatUtc(parseDateTime('2026-10-25T02:30:00', 'Europe/Berlin')!)).toBe(
			'2026-10-25T00:30:00Z',
		); // first 02:30
	});
});

describe('formatInZone', () => {
	it.each([
		['Asia/Tokyo', '2026-03-02T18:00:00+09:00'],
		['America/St_Johns', '2026-03-02T05:30:00-03:30'],
		['Asia/Kathmandu', '2026-03-02T14:45:00+05:45'],
		['UTC', '2026-03-02T09:00:00+00:00'],
	])('%s → %s', (zone, expected) => {
		expect(formatInZone(utc('2026-03-02T09:00:00Z'), zone)).toBe(expected);
	});

	it('round-trips through parseDateTime', () => {
		const instant = utc('2026-10-25T00:30:00Z');
		expect(parseDateTime(formatInZone(instant, 'Europe/Berlin'), 'UTC')).toBe(instant);
	});
});

describe('calendar dates', () => {
	it('reads YYYY-MM-DD and the date part of a date-time as written', () => {
		expect(formatCalendarDate(parseCalendarDate('2026-03-02', 'UTC')!)).toBe('2026-03-02');
		expect(formatCalendarDate(parseCalendarDate('2026-03-02T23:30:00-05:00', 'UTC')!)).toBe(
			'2026-03-02',
		);
		expect(parseCalendarDate('2026-02-30', 'UTC')).toBeUndefined();
		expect(parseCalendarDate('2026-02-01Tgarbage', 'UTC')).toBeUndefined();
	});

	it('reads the date of a Date in the given zone', () => {
		expect(
			formatCalendarDate(parseCalendarDate(new Date('2026-03-02T20:00:00Z'), 'Asia/Tokyo')!),
		).toBe('2026-03-03');
	});

	it('finds the start of a day in a zone', () => {
		expect(formatUtc(startOfDay(parseCalendarDate('2026-03-02', 'UTC')!, 'Asia/Tokyo'))).toBe(
			'2026-03-01T15:00:00Z',
		);
	});
});

describe('splitIntoWindows', () => {
	it('splits an inclusive range into contiguous windows of at most the given days', () => {
		expect(splitIntoWindows(0, 69, 31)).toEqual([
			{ from: 0, to: 30 },
			{ from: 31, to: 61 },
			{ from: 62, to: 69 },
		]);
		expect(splitIntoWindows(5, 5, 31)).toEqual([{ from: 5, to: 5 }]);
		expect(splitIntoWindows(0, 30, 31)).toEqual([{ from: 0, to: 30 }]);
		expect(splitIntoWindows(3, 2, 31)).toEqual([]);
	});
});

describe('time zone names', () => {
	it.each([
		['Europe/Berlin', 'Europe/Berlin'],
		['europe/berlin', 'Europe/Berlin'],
		['AMERICA/NEW_YORK', 'America/New_York'],
		['utc', 'UTC'],
		['pacific/TONGATAPU', 'Pacific/Tongatapu'],
	])('%s is spelled %s', (typed, canonical) => {
		expect(canonicalTimeZone(typed)).toBe(canonical);
	});

	it.each(['', '+09:00', 'GMT+9', 'Europe/Nowhere', 'Europe//Berlin', ' Europe/Berlin', 'x'.repeat(5000)])(
		'%j is not an IANA zone name',
		(typed) => {
			expect(canonicalTimeZone(typed)).toBeUndefined();
		},
	);

	it('a flood of distinct spellings (as a public form could send) keeps both caches bounded', () => {
		const zones = Intl.supportedValuesOf('timeZone');
		let spellings = 0;
		for (let round = 0; spellings < 40_000; round++) {
			for (const zone of zones) {
				// A different mix of upper and lower case per round: each one a new spelling of a real zone.
				const typed = [...zone]
					.map((char, index) => (((round >> index % 16) & 1) === 1 ? char.toUpperCase() : char.toLowerCase()))
					.join('');
				expect(canonicalTimeZone(typed)).toBe(zone);
				// And nonsense that looks like a name.
				canonicalTimeZone(`Nowhere/${round}_${spellings}`);
				spellings += 2;
			}
		}
		const sizes = timeZoneCacheSizes();
		expect(sizes.spellings).toBeLessThanOrEqual(2_000);
		// One formatter per real zone at most, never one per spelling.
		expect(sizes.formatters).toBeLessThanOrEqual(zones.length + 1);
	});
});
