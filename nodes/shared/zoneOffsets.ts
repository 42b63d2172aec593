// Zone offsets and wall clocks read through Intl as rarely as possible: two Intl calls per local time were most of
// Return All's CPU time for 10,000 bookings, so offsets are read once per zone and UTC day and kept as spans.

import { setAsNewest } from './setAsNewest';

const DAY_MS = 86_400_000;

// Every cache is bounded: Intl accepts any letter case ("europe/BERLIN"), so a public form can send unboundedly many
// spellings; they map to the canonical name, and formatters (large objects) are kept per canonical name only.
const MAX_SPELLINGS = 2_000;
const MAX_FORMATTERS = 1_000;
/** Spans are kept for this many zones (a workflow uses one or a few), each holding at most MAX_SPANS_PER_ZONE. */
const MAX_SPAN_ZONES = 100;
const MAX_SPANS_PER_ZONE = 256;
/** Only in these years do Intl's Gregorian wall clock and Date's UTC arithmetic agree field for field. */
const SPANS_FROM = Date.UTC(1900, 0, 1);
const SPANS_TO = Date.UTC(2200, 0, 1);

const canonicalBySpelling = new Map<string, string | null>();
const formatters = new Map<string, Intl.DateTimeFormat>();

/** A stretch of time, both ends included, over which the zone's offset is known not to change. */
interface Span {
	start: number;
	end: number;
	offsetMs: number;
}
/** Per canonical zone name: disjoint spans in time order. */
const spansByZone = new Map<string, Span[]>();

export interface WallClock {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
	millisecond: number;
}

function newFormatter(timeZone: string): Intl.DateTimeFormat {
	return new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	});
}

/** Offsets such as "+09:00", which Intl accepts, are not IANA names and the service refuses them. */
export function canonicalTimeZone(text: string): string | undefined {
	const known = canonicalBySpelling.get(text);
	if (known !== undefined) return known ?? undefined;
	let canonical: string | null = null;
	if (/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(text)) {
		try {
			canonical = newFormatter(text).resolvedOptions().timeZone;
		} catch {
			canonical = null;
		}
	}
	setAsNewest(canonicalBySpelling, text, canonical, MAX_SPELLINGS);
	return canonical ?? undefined;
}

function canonicalOrThrow(timeZone: string): string {
	const canonical = canonicalTimeZone(timeZone);
	if (canonical === undefined) throw new RangeError(`Invalid time zone: ${timeZone}`);
	return canonical;
}

function formatterFor(canonical: string): Intl.DateTimeFormat {
	let formatter = formatters.get(canonical);
	if (formatter === undefined) {
		formatter = newFormatter(canonical);
		setAsNewest(formatters, canonical, formatter, MAX_FORMATTERS);
	}
	return formatter;
}

/** How many entries the caches hold now (and how many spans one zone has); for the tests of their bounds. */
export function timeZoneCacheSizes(zone?: string): {
	spellings: number;
	formatters: number;
	spanZones: number;
	largestSpanList: number;
	zoneSpans: number;
} {
	let largestSpanList = 0;
	for (const spans of spansByZone.values()) largestSpanList = Math.max(largestSpanList, spans.length);
	return {
		spellings: canonicalBySpelling.size,
		formatters: formatters.size,
		spanZones: spansByZone.size,
		largestSpanList,
		zoneSpans: zone === undefined ? 0 : (spansByZone.get(zone)?.length ?? 0),
	};
}

/** The instant at which UTC's clock shows this wall-clock time; the zone's offset is the difference from it. */
export function wallClockAsUtc(wall: WallClock): number {
	return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, wall.millisecond);
}

/** The wall clock as Intl shows it: the reference every other figure here is derived from. */
function intlWallClockAt(instantMs: number, canonical: string): WallClock {
	const parts: Record<string, number> = {};
	for (const part of formatterFor(canonical).formatToParts(new Date(instantMs))) {
		if (part.type !== 'literal') parts[part.type] = Number(part.value);
	}
	return {
		year: parts.year,
		month: parts.month,
		day: parts.day,
		hour: parts.hour,
		minute: parts.minute,
		second: parts.second,
		millisecond: ((instantMs % 1000) + 1000) % 1000,
	};
}

function intlOffsetMsAt(instantMs: number, canonical: string): number {
	return wallClockAsUtc(intlWallClockAt(instantMs, canonical)) - instantMs;
}

function firstSpanEndingFrom(spans: Span[], instantMs: number): number {
	let low = 0;
	let high = spans.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if (spans[middle].end < instantMs) low = middle + 1;
		else high = middle;
	}
	return low;
}

// A day whose offsets agree at both ends keeps it all day (in 1900–2100 changes are 7 days apart or more, by a scan
// of every zone) and joins its neighbours; a day with a change is read through Intl on every call.
function spannedOffsetMsAt(instantMs: number, canonical: string): number {
	let spans = spansByZone.get(canonical);
	if (spans === undefined) {
		spans = [];
		setAsNewest(spansByZone, canonical, spans, MAX_SPAN_ZONES);
	}
	const index = firstSpanEndingFrom(spans, instantMs);
	const after: Span | undefined = spans[index];
	if (after !== undefined && after.start <= instantMs) return after.offsetMs;
	const before: Span | undefined = spans[index - 1];
	const dayStart = Math.floor(instantMs / DAY_MS) * DAY_MS;
	const dayEnd = dayStart + DAY_MS;
	const atStart = before?.end === dayStart ? before.offsetMs : intlOffsetMsAt(dayStart, canonical);
	const atEnd = after?.start === dayEnd ? after.offsetMs : intlOffsetMsAt(dayEnd, canonical);
	if (atStart !== atEnd) return intlOffsetMsAt(instantMs, canonical);
	const joinsBefore = before?.end === dayStart && before.offsetMs === atStart;
	const joinsAfter = after?.start === dayEnd && after.offsetMs === atStart;
	if (joinsBefore && joinsAfter) {
		before.end = after.end;
		spans.splice(index, 1);
	} else if (joinsBefore) {
		before.end = dayEnd;
	} else if (joinsAfter) {
		after.start = dayStart;
	} else {
		// Scattered days can fill the list; starting it over keeps it bounded and costs two Intl reads per day.
		if (spans.length >= MAX_SPANS_PER_ZONE) {
			spans.length = 0;
			spans.push({ start: dayStart, end: dayEnd, offsetMs: atStart });
		} else {
			spans.splice(index, 0, { start: dayStart, end: dayEnd, offsetMs: atStart });
		}
	}
	return atStart;
}

/** The zone's offset from UTC at that instant, in milliseconds (east positive); whole seconds, as Intl shows them. */
export function offsetMsAt(instantMs: number, timeZone: string): number {
	const canonical = canonicalOrThrow(timeZone);
	return instantMs >= SPANS_FROM && instantMs < SPANS_TO
		? spannedOffsetMsAt(instantMs, canonical)
		: intlOffsetMsAt(instantMs, canonical);
}

export function wallClockAt(instantMs: number, timeZone: string): WallClock {
	const canonical = canonicalOrThrow(timeZone);
	if (!(instantMs >= SPANS_FROM && instantMs < SPANS_TO)) return intlWallClockAt(instantMs, canonical);
	const wall = new Date(instantMs + spannedOffsetMsAt(instantMs, canonical));
	return {
		year: wall.getUTCFullYear(),
		month: wall.getUTCMonth() + 1,
		day: wall.getUTCDate(),
		hour: wall.getUTCHours(),
		minute: wall.getUTCMinutes(),
		second: wall.getUTCSeconds(),
		millisecond: wall.getUTCMilliseconds(),
	};
}

/** Whether offsetMsAt and wallClockAt answer from spans for this instant; formatInZone's shortcut holds there. */
export function isSpannedInstant(instantMs: number): boolean {
	return instantMs >= SPANS_FROM && instantMs < SPANS_TO;
}
