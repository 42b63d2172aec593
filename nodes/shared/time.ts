// Dates and time zones without a date library (the package ships no runtime dependencies; Intl knows every IANA
// zone). Instants are epoch milliseconds; wall-clock values are in a named IANA zone.

import { localTimeText, offsetText } from './instantText';
import { isSpannedInstant, offsetMsAt, wallClockAsUtc, wallClockAt } from './zoneOffsets';
import type { WallClock } from './zoneOffsets';

export { parseUtc } from './instantText';
export { canonicalTimeZone, timeZoneCacheSizes } from './zoneOffsets';

const DAY_MS = 86_400_000;

// The offset may be written as Get Available Slots writes it by day ("09:00 UTC-05:00"), so that a day and a time joined
// with T (2026-03-02T09:00 UTC+01:00) are the exact instant.
const ISO_WITH_OPTIONAL_TIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|UTC|(?:UTC)?[+-]\d{2}:?\d{2})?$/i;

/** Every zone's offset lies within UTC-12 and UTC+14, so a wall-clock time's instant is within these of it. */
const EARLIEST_OFFSET_MS = -12 * 3_600_000;
const LATEST_OFFSET_MS = 14 * 3_600_000;
/** Read the offsets just outside that range, so the one in force before and after any change nearby is seen. */
const OFFSET_PROBE_MARGIN_MS = 3_600_000;

// In a DST gap the time moves forward by the gap (02:30 becomes 03:30); in an overlap the earlier instant wins, as in
// calendar apps. Only the offsets in force at both ends of [wall − 14 h, wall + 12 h] are candidates (a zone changes
// offset at most once in a day and a bit); each is kept only if the zone has that offset at the instant it gives.
export function instantOfWallClock(wall: WallClock, timeZone: string): number {
	const wallAsUtc = wallClockAsUtc(wall);
	const offsetBefore = offsetMsAt(wallAsUtc - LATEST_OFFSET_MS - OFFSET_PROBE_MARGIN_MS, timeZone);
	const offsetAfter = offsetMsAt(wallAsUtc - EARLIEST_OFFSET_MS + OFFSET_PROBE_MARGIN_MS, timeZone);
	const matching = [wallAsUtc - offsetBefore, wallAsUtc - offsetAfter]
		.filter((instant) => offsetMsAt(instant, timeZone) === wallAsUtc - instant)
		.sort((a, b) => a - b);
	// No match means a DST gap: reading the time with the offset before the gap moves it forward by the gap.
	return matching[0] ?? wallAsUtc - offsetBefore;
}

function pad(value: number, width = 2): string {
	return String(Math.abs(value)).padStart(width, '0');
}

/** `2026-03-02T09:00:00Z`: the UTC form the service expects, with milliseconds only when there are any. */
export function formatUtc(instantMs: number): string {
	const iso = new Date(instantMs).toISOString();
	return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

/** `2026-03-02T10:00:00+01:00`: the instant as a wall-clock time in the zone, with its offset. */
export function formatInZone(instantMs: number, timeZone: string): string {
	const offsetMs = offsetMsAt(instantMs, timeZone);
	// Where spans answer, the year has four digits and the wall clock is UTC's clock moved by the offset.
	if (isSpannedInstant(instantMs)) return localTimeText(instantMs + offsetMs, offsetMs);
	const wall = wallClockAt(instantMs, timeZone);
	return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}${offsetText(offsetMs)}`;
}

// A value without an offset is wall-clock time in `defaultTimeZone` (n8n's date-time picker gives such values, meant in
// the workflow's time zone); Luxon DateTimes come from expressions such as `{{ $now.plus(1, 'day') }}`.
export function parseDateTime(value: unknown, defaultTimeZone: string): number | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
	if (
		typeof value === 'object' &&
		value !== null &&
		typeof (value as { toMillis?: unknown }).toMillis === 'function'
	) {
		const millis = (value as { toMillis: () => number }).toMillis();
		return Number.isFinite(millis) ? millis : undefined;
	}
	if (typeof value !== 'string') return undefined;
	const match = ISO_WITH_OPTIONAL_TIME.exec(value.trim());
	if (!match) return undefined;
	const [year, month, day, hour = 0, minute = 0, second = 0] = match
		.slice(1, 7)
		.map((part) => Number(part ?? 0));
	const millisecond = match[7] === undefined ? 0 : Number(match[7].padEnd(3, '0').slice(0, 3));
	if (!isRealWallClock(year, month, day, hour, minute, second)) return undefined;
	const wall = { year, month, day, hour, minute, second, millisecond };
	const zone = match[8];
	if (zone === undefined) return instantOfWallClock(wall, defaultTimeZone);
	const wallAsUtc = wallClockAsUtc(wall);
	if (zone.toUpperCase() === 'Z' || zone.toUpperCase() === 'UTC') return wallAsUtc;
	const digits = zone.replace(/^UTC/i, '').replace(':', '');
	const sign = digits.startsWith('-') ? -1 : 1;
	const offsetHours = Number(digits.slice(1, 3));
	const offsetMinutes = Number(digits.slice(3, 5));
	if (offsetHours > 23 || offsetMinutes > 59) return undefined;
	return wallAsUtc - sign * (offsetHours * 60 + offsetMinutes) * 60_000;
}

function isRealWallClock(
	year: number,
	month: number,
	day: number,
	hour: number,
	minute: number,
	second: number,
) {
	if (hour > 23 || minute > 59 || second > 59) return false;
	const check = new Date(Date.UTC(year, month - 1, day));
	return (
		check.getUTCFullYear() === year &&
		check.getUTCMonth() === month - 1 &&
		check.getUTCDate() === day
	);
}

/** A calendar date as a day number (days since 1970-01-01), which makes date arithmetic plain integer arithmetic. */
export type DayNumber = number;

/** A Luxon DateTime (`{{ $today }}`) gives the date it shows in its own zone; a JS Date its date in `timeZone`. */
export function parseCalendarDate(value: unknown, timeZone: string): DayNumber | undefined {
	const isoDate = (value as { toISODate?: unknown } | null)?.toISODate;
	if (typeof isoDate === 'function') {
		const text: unknown = isoDate.call(value);
		return typeof text === 'string' ? parseCalendarDate(text, timeZone) : undefined;
	}
	if (value instanceof Date || (typeof value === 'object' && value !== null)) {
		const instant = parseDateTime(value, timeZone);
		if (instant === undefined) return undefined;
		const wall = wallClockAt(instant, timeZone);
		return Date.UTC(wall.year, wall.month - 1, wall.day) / DAY_MS;
	}
	if (typeof value !== 'string') return undefined;
	const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(value.trim());
	if (!match) return undefined;
	const [year, month, day] = match.slice(1, 4).map(Number);
	if (!isRealWallClock(year, month, day, 0, 0, 0)) return undefined;
	if (match[0].length > 10 && parseDateTime(value, 'UTC') === undefined) return undefined;
	return Date.UTC(year, month - 1, day) / DAY_MS;
}

export function formatCalendarDate(day: DayNumber): string {
	return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

export function startOfDay(day: DayNumber, timeZone: string): number {
	const date = new Date(day * DAY_MS);
	return instantOfWallClock(
		{
			year: date.getUTCFullYear(),
			month: date.getUTCMonth() + 1,
			day: date.getUTCDate(),
			hour: 0,
			minute: 0,
			second: 0,
			millisecond: 0,
		},
		timeZone,
	);
}

export function splitIntoWindows(
	from: DayNumber,
	to: DayNumber,
	maxDays: number,
): Array<{ from: DayNumber; to: DayNumber }> {
	const windows: Array<{ from: DayNumber; to: DayNumber }> = [];
	for (let start = from; start <= to; start += maxDays) {
		windows.push({ from: start, to: Math.min(to, start + maxDays - 1) });
	}
	return windows;
}
