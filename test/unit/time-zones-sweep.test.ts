/**
 * Local time → instant in every IANA zone this Node.js knows, 2015–2035, checked against an independent computation.
 *
 * Independent: the offsets come from Intl's `longOffset` zone names ("GMT+05:45"), not from the wall-clock arithmetic
 * the node uses, and every offset change is located to the second by bisection. For each change at instant T from
 * offset `before` to `after`, a wall-clock time W has the instant W − before if that is earlier than T, and W − after
 * if that is T or later; when both hold (an overlap) the earlier wins, when neither holds (a gap) the time moves forward
 * by the gap, i.e. W − before. Wall times are probed just before, inside and just after each gap or overlap.
 */
import { describe, expect, it } from 'vitest';

import { instantOfWallClock } from '../../nodes/shared/time.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FROM = Date.UTC(2015, 0, 1);
const TO = Date.UTC(2036, 0, 1);
/** Offset changes are weeks apart (the shortest, Morocco's Ramadan pause, lasts about a month). */
const STEP = 4 * DAY;

const offsetReaders = new Map<string, Intl.DateTimeFormat>();
function offsetMs(zone: string, instant: number): number {
	let reader = offsetReaders.get(zone);
	if (!reader) {
		reader = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
		offsetReaders.set(zone, reader);
	}
	const name = reader.formatToParts(instant).find((part) => part.type === 'timeZoneName')!.value;
	const match = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name);
	if (!match) throw new Error(`unexpected offset name ${name} for ${zone}`);
	if (match[1] === undefined) return 0;
	const magnitude = (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0)) * 1000;
	return match[1] === '-' ? -magnitude : magnitude;
}

interface Change {
	at: number;
	before: number;
	after: number;
}

function changesOf(zone: string): Change[] {
	const changes: Change[] = [];
	let previous = offsetMs(zone, FROM);
	for (let start = FROM; start < TO; start += STEP) {
		const end = Math.min(start + STEP, TO);
		const next = offsetMs(zone, end);
		if (next === previous) continue;
		// Bisect to the first second with the new offset.
		let low = start;
		let high = end;
		while (high - low > 1000) {
			const middle = low + Math.floor((high - low) / 2000) * 1000;
			if (offsetMs(zone, middle) === previous) low = middle;
			else high = middle;
		}
		changes.push({ at: high, before: previous, after: offsetMs(zone, high) });
		previous = next;
	}
	return changes;
}

function expectedInstant(wallAsUtc: number, change: Change): number {
	const candidates = [wallAsUtc - change.before, wallAsUtc - change.after].filter((instant, index) =>
		index === 0 ? instant < change.at : instant >= change.at,
	);
	return candidates.length > 0 ? Math.min(...candidates) : wallAsUtc - change.before;
}

function wallOf(wallAsUtc: number) {
	const date = new Date(wallAsUtc);
	return {
		year: date.getUTCFullYear(),
		month: date.getUTCMonth() + 1,
		day: date.getUTCDate(),
		hour: date.getUTCHours(),
		minute: date.getUTCMinutes(),
		second: date.getUTCSeconds(),
		millisecond: 0,
	};
}

const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];

describe('local time → instant, every zone 2015–2035', () => {
	it('matches the independent computation around every offset change, and away from them', () => {
		const wrong: string[] = [];
		let cases = 0;
		let changesSeen = 0;
		for (const zone of ZONES) {
			const changes = changesOf(zone);
			changesSeen += changes.length;
			for (const [index, change] of changes.entries()) {
				// A probe is only judged against this change when no other change is within two days of it.
				const neighbours = [changes[index - 1]?.at, changes[index + 1]?.at].filter(
					(at) => at !== undefined && Math.abs(at - change.at) < 2 * DAY,
				);
				if (neighbours.length > 0) continue;
				const low = change.at + Math.min(change.before, change.after);
				const high = change.at + Math.max(change.before, change.after);
				const probes = [low - 6 * HOUR, low - 1000, low, (low + high) / 2, high - 1000, high, high + 6 * HOUR];
				for (const wallAsUtc of probes) {
					const rounded = Math.floor(wallAsUtc / 1000) * 1000;
					const expected = expectedInstant(rounded, change);
					const actual = instantOfWallClock(wallOf(rounded), zone);
					cases++;
					if (actual !== expected) {
						wrong.push(
							`${zone} ${new Date(rounded).toISOString().slice(0, 19)} → ${new Date(actual).toISOString()}, expected ${new Date(expected).toISOString()}`,
						);
					}
				}
			}
		}
		expect(wrong.slice(0, 20)).toEqual([]);
		// The sweep really ran: hundreds of zones, thousands of offset changes.
		expect(ZONES.length).toBeGreaterThan(400);
		expect(changesSeen).toBeGreaterThan(3000);
		expect(cases).toBeGreaterThan(20_000);
	}, 120_000);

	it.each([
		// The cases the issue named: zones beyond UTC+12.
		['Pacific/Tongatapu', '2016-11-06T02:30:00', '2016-11-05T13:30:00.000Z'], // gap 02:00–03:00 (+13 → +14)
		['Pacific/Tongatapu', '2016-11-06T01:00:00', '2016-11-05T12:00:00.000Z'],
		['Pacific/Auckland', '2026-04-05T02:30:00', '2026-04-04T13:30:00.000Z'], // overlap: the earlier (+13)
		['Pacific/Chatham', '2026-09-27T03:00:00', '2026-09-26T14:15:00.000Z'], // gap 02:45–03:45 at +12:45
		['Pacific/Apia', '2011-12-30T12:00:00', '2011-12-30T22:00:00.000Z'], // the skipped day: moved forward 24 h
		['America/New_York', '2026-03-08T02:30:00', '2026-03-08T07:30:00.000Z'],
		['America/New_York', '2026-11-01T01:30:00', '2026-11-01T05:30:00.000Z'],
	])('%s %s → %s', (zone, local, expected) => {
		const wall = wallOf(Date.parse(`${local}Z`));
		expect(new Date(instantOfWallClock(wall, zone)).toISOString()).toBe(expected);
	});
});
