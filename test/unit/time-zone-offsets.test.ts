/**
 * Local times from spans of constant offset (zoneOffsets.ts) are the text an Intl call per field gave, in every zone:
 * checked against that computation, kept here as the reference, around every offset change 2015–2035, on random
 * instants 1900–2200, at UTC midnights, and outside the spanned years. Then the bounds of the span cache.
 */
import { describe, expect, it } from 'vitest';

import { timeTextCacheSize } from '../../nodes/shared/instantText.ts';
import { formatInZone, parseCalendarDate, timeZoneCacheSizes } from '../../nodes/shared/time.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];

/** The formatting before spans: the wall clock read from Intl for the instant, the offset derived from it. */
const referenceReaders = new Map<string, Intl.DateTimeFormat>();
function referenceFormat(instant: number, zone: string): string {
	let reader = referenceReaders.get(zone);
	if (!reader) {
		reader = new Intl.DateTimeFormat('en-US', {
			timeZone: zone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		});
		referenceReaders.set(zone, reader);
	}
	const parts: Record<string, number> = {};
	for (const part of reader.formatToParts(new Date(instant))) {
		if (part.type !== 'literal') parts[part.type] = Number(part.value);
	}
	const millisecond = ((instant % 1000) + 1000) % 1000;
	const wallAsUtc = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, millisecond);
	const offsetMinutes = Math.round((wallAsUtc - instant) / 60_000);
	const pad = (value: number) => String(Math.abs(value)).padStart(2, '0');
	const offset = `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
	return `${parts.year}-${pad(parts.month)}-${pad(parts.day)}T${pad(parts.hour)}:${pad(parts.minute)}:${pad(parts.second)}${offset}`;
}

/** Instants where the reference's offset changes, 2015–2035, each to the second (bisection as in the sweep test). */
function changesOf(zone: string): number[] {
	const from = Date.UTC(2015, 0, 1);
	const to = Date.UTC(2036, 0, 1);
	const offsetOf = (instant: number) => referenceFormat(instant, zone).slice(19);
	const changes: number[] = [];
	for (let start = from; start < to; start += 4 * DAY) {
		const end = start + 4 * DAY;
		if (offsetOf(start) === offsetOf(end)) continue;
		let low = start;
		let high = end;
		while (high - low > 1000) {
			const middle = low + Math.floor((high - low) / 2000) * 1000;
			if (offsetOf(middle) === offsetOf(start)) low = middle;
			else high = middle;
		}
		changes.push(high);
	}
	return changes;
}

/** A fixed pseudo-random sequence, so a failure can be reproduced. */
function randomSequence(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
		return state / 2_147_483_648;
	};
}

describe('local times from spans of constant offset', () => {
	it('are the text of an Intl call per field, in every zone, around every change and anywhere else', () => {
		const random = randomSequence(20);
		const wrong: string[] = [];
		let cases = 0;
		const check = (instant: number, zone: string) => {
			cases++;
			const actual = formatInZone(instant, zone);
			const expected = referenceFormat(instant, zone);
			if (actual !== expected) wrong.push(`${zone} ${new Date(instant).toISOString()}: ${actual}, expected ${expected}`);
		};
		for (const zone of ZONES) {
			const probes: number[] = [];
			for (const change of changesOf(zone)) {
				probes.push(change - DAY, change - HOUR, change - 1, change, change + 1, change + HOUR, change + DAY);
			}
			for (let index = 0; index < 40; index++) {
				const instant = Date.UTC(1900, 0, 1) + Math.floor(random() * (Date.UTC(2200, 0, 1) - Date.UTC(1900, 0, 1)));
				probes.push(instant, Math.floor(instant / DAY) * DAY);
			}
			// Outside the spanned years, and at their edges.
			probes.push(Date.UTC(1850, 5, 1, 12), Date.UTC(1900, 0, 1) - 1, Date.UTC(1900, 0, 1), Date.UTC(2199, 11, 31, 23, 59, 59, 999));
			probes.push(Date.UTC(2200, 0, 1), Date.UTC(2500, 5, 1, 12, 30, 15, 250));
			// Twice, in a different order: what a cold cache gives, a warm one gives too.
			for (const instant of probes) check(instant, zone);
			for (const instant of probes.reverse()) check(instant, zone);
		}
		expect(wrong.slice(0, 20)).toEqual([]);
		expect(cases).toBeGreaterThan(100_000);
	}, 180_000);

	it('give the calendar date Intl gives', () => {
		const random = randomSequence(7);
		for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/St_Johns', 'Asia/Kathmandu']) {
			for (let index = 0; index < 500; index++) {
				const instant = Date.UTC(2020, 0, 1) + Math.floor(random() * 10 * 365 * DAY);
				const expected = referenceFormat(instant, zone).slice(0, 10);
				expect(new Date(parseCalendarDate(new Date(instant), zone)! * DAY).toISOString().slice(0, 10)).toBe(expected);
			}
		}
	});

	it('keep spans for at most 100 zones and 256 spans per zone, whatever is asked', () => {
		// Every zone, many times more than the bound.
		for (const zone of ZONES) formatInZone(Date.UTC(2026, 2, 2, 9), zone);
		// Scattered days, never adjacent, far more than the bound of one zone.
		for (let day = 0; day < 5_000; day++) formatInZone(Date.UTC(1950, 0, 1) + day * 3 * DAY + 12 * HOUR, 'Europe/Berlin');
		const sizes = timeZoneCacheSizes();
		expect(ZONES.length).toBeGreaterThan(400);
		expect(sizes.spanZones).toBeLessThanOrEqual(100);
		expect(sizes.largestSpanList).toBeLessThanOrEqual(256);
		// And the answers stay right after the lists were started over.
		expect(formatInZone(Date.UTC(1950, 0, 1, 12), 'Europe/Berlin')).toBe(referenceFormat(Date.UTC(1950, 0, 1, 12), 'Europe/Berlin'));
	});

	it('a run of adjacent days in one zone becomes one span per stretch between changes', () => {
		const zone = 'America/New_York';
		for (let hour = 0; hour < 10_000; hour++) formatInZone(Date.UTC(2031, 0, 1) - hour * HOUR, zone);
		// 10,000 hours (417 days) cross 2030's and 2029's changes; the days with a change are not spanned.
		expect(timeZoneCacheSizes(zone).zoneSpans).toBeLessThanOrEqual(5);
		for (let hour = 0; hour < 10_000; hour += 7) {
			const instant = Date.UTC(2031, 0, 1) - hour * HOUR;
			expect(formatInZone(instant, zone)).toBe(referenceFormat(instant, zone));
		}
	});

	it('keep at most 2,048 time-of-day texts, and stay right after starting them over', () => {
		const random = randomSequence(3);
		for (let index = 0; index < 20_000; index++) {
			const instant = Date.UTC(2026, 0, 1) + Math.floor(random() * 365 * DAY);
			const zone = ZONES[index % ZONES.length];
			expect(formatInZone(instant, zone)).toBe(referenceFormat(instant, zone));
			expect(timeTextCacheSize()).toBeLessThanOrEqual(2_048);
		}
	});
});
