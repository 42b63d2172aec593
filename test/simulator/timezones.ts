/**
 * Wall-clock arithmetic in IANA time zones with nothing but Intl: enough to lay weekly availability
 * (given in the host's local time) onto UTC instants, across daylight-saving changes.
 */
import type { CalendarDate } from './validation.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
	let format = formatters.get(timeZone);
	if (format === undefined) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric',
		});
		formatters.set(timeZone, format);
	}
	return format;
}

export interface WallClock extends CalendarDate {
	hour: number;
	minute: number;
	second: number;
}

/** The local date and time in `timeZone` at an instant. */
export function wallClockAt(epochMs: number, timeZone: string): WallClock {
	const parts: Record<string, number> = {};
	for (const part of formatter(timeZone).formatToParts(new Date(epochMs))) {
		if (part.type !== 'literal') parts[part.type] = Number(part.value);
	}
	return {
		year: parts.year,
		month: parts.month,
		day: parts.day,
		hour: parts.hour,
		minute: parts.minute,
		second: parts.second,
	};
}

function offsetMs(epochMs: number, timeZone: string): number {
	const wall = wallClockAt(epochMs, timeZone);
	const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
	return asUtc - Math.floor(epochMs / 1000) * 1000;
}

/**
 * The instant at which the wall clock in `timeZone` shows `date` plus `minutes` after midnight. In
 * an overlap (fall back) the earlier of the two instants is taken; in a gap (spring forward) that
 * wall time never shows, and the instant just after the gap is taken.
 */
export function instantOf(date: CalendarDate, minutes: number, timeZone: string): number {
	const naive = Date.UTC(date.year, date.month - 1, date.day) + minutes * 60_000;
	const first = naive - offsetMs(naive, timeZone);
	const second = naive - offsetMs(first, timeZone);
	const showsNaive = (instant: number) => instant + offsetMs(instant, timeZone) === naive;
	const exact = [first, second].filter(showsNaive);
	return exact.length > 0 ? Math.min(...exact) : Math.max(first, second);
}

/** Calendar arithmetic on dates without time zones. */
export function addDays(date: CalendarDate, days: number): CalendarDate {
	const moved = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
	return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

export function daysBetween(from: CalendarDate, to: CalendarDate): number {
	return Math.round(
		(Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) /
			86_400_000,
	);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(date: CalendarDate): number {
	return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

export function sameDate(a: CalendarDate, b: CalendarDate): boolean {
	return a.year === b.year && a.month === b.month && a.day === b.day;
}
