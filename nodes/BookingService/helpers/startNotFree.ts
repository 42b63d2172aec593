// The service answers a Create whose start is not free with a bare 409, the same for a start that never was a free
// time (off the event type's times, outside the host's hours) and one taken since the slots were read — mistakes the
// reader fixes in different places. So on a 409, and only then, the node reads the free times around the start once
// and says which it was, naming the nearest free times. It never books one of them.
import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import { withServiceErrorText } from '../../shared/serviceErrors';
import type { ErrorText } from '../../shared/serviceErrorTexts';
import { formatCalendarDate, formatInZone, startOfDay } from '../../shared/time';
import type { DayNumber } from '../../shared/time';
import { bookingServiceApiRequest } from '../../shared/transport';

const DAY_MS = 86_400_000;
/** The service's days may start up to 26 hours from the zone's (see Get Available Slots' PADDING_DAYS). */
const DAYS_BEFORE = 2;
/** A week past the start's day, so the nearest free times can be named when that day has none. */
const DAYS_AFTER = 9;
const NEAREST_COUNT = 3;

function isStartNotFree(error: unknown): error is NodeApiError {
	return (error as { context?: { serviceErrorCode?: unknown } })?.context?.serviceErrorCode === 'slot_unavailable';
}

/** `2026-03-03 09:30`: the form Start accepts, read in the same zone. */
function localMinute(instant: number, zone: string): string {
	const local = formatInZone(instant, zone);
	return `${local.slice(0, 10)} ${local.slice(11, 16)}`;
}

function localDay(instant: number, zone: string): DayNumber {
	return Date.parse(`${formatInZone(instant, zone).slice(0, 10)}T00:00:00Z`) / DAY_MS;
}

function gcd(a: number, b: number): number {
	return b === 0 ? a : gcd(b, a % b);
}

/** What the free times around `start` (sorted instants) say about why it was not free; pure, for the tests. */
export function whyStartNotFree(start: number, freeTimes: number[], zone: string): ErrorText {
	const at = `The start ${localMinute(start, zone)} (${zone})`;
	// The last free time before the start and the first two after it; more on one side when the other has fewer.
	const before = freeTimes.filter((instant) => instant < start);
	const after = freeTimes.filter((instant) => instant > start);
	const afterCount = Math.min(after.length, Math.max(NEAREST_COUNT - 1, NEAREST_COUNT - before.length));
	const beforeCount = Math.min(before.length, NEAREST_COUNT - afterCount);
	const nearest = [...before.slice(before.length - beforeCount), ...after.slice(0, afterCount)].map((instant) =>
		localMinute(instant, zone),
	);
	const offer = nearest.length === 0 ? '' : ` The nearest free times: ${nearest.join(', ')}.`;
	const day = localDay(start, zone);
	const dayTimes = freeTimes.filter((instant) => localDay(instant, zone) === day);
	// Start times lie on a grid (every duration from the start of the host's hours): the gcd of the gaps between free
	// times is a divisor of its step, so a start off it can never have been free.
	const step = freeTimes.slice(1).reduce((divisor, instant, index) => gcd(divisor, instant - freeTimes[index]), 0);

	const clockTime = (instant: number) => localMinute(instant, zone).slice(11);
	let why: string;
	if (freeTimes.includes(start)) {
		why = `${at} was not free when the booking was sent, but is free again now; no booking was made. Run the node again to book it.`;
		return { message: why, description: '', agentAdvice: 'Ask the customer to confirm the time, then book it again.' };
	}
	if (freeTimes.length === 0) {
		why = `${at} is not a free time, and this event type has no free time in the ${DAYS_AFTER} days after it either; no booking was made.`;
	} else if (step > 0 && (start - freeTimes[0]) % step !== 0) {
		why = `${at} is not one of this event type's start times; no booking was made.`;
	} else if (dayTimes.length === 0) {
		why = `${at} is on a day without free times for this event type (outside the host's hours, or fully booked); no booking was made.`;
	} else if (freeTimes.some((instant) => clockTime(instant) === clockTime(start))) {
		// The same time is free on other days, so the host works then: this day's was taken.
		why = `${at} is no longer free: the same time is free on other days, so it was most likely booked (or blocked in the host's calendar) since the free times were read; no booking was made.`;
	} else {
		why = `${at} is outside the host's hours: no day around it has a free start at ${clockTime(start)}, and that day's free times run from ${clockTime(dayTimes[0])} to ${clockTime(dayTimes[dayTimes.length - 1])}; no booking was made.`;
	}
	return {
		message: `${why}${offer}`,
		description: '',
		agentAdvice: 'Offer the customer the nearest free times named here, and book one only after they choose it.',
	};
}

/**
 * Create's failure as thrown, except a 409, told apart: the free times are read once; if that read fails, the service's
 * answer stands as it was.
 */
export async function explainIfStartNotFree(
	this: IExecuteFunctions,
	itemIndex: number,
	attempt: { eventTypeId: string; start: string; zone: string; timeoutMs: number | undefined },
	error: unknown,
): Promise<unknown> {
	if (!isStartNotFree(error)) return error;
	const start = Date.parse(attempt.start);
	const day = localDay(start, attempt.zone);
	const from = formatCalendarDate(day - DAYS_BEFORE);
	const to = formatCalendarDate(day + DAYS_AFTER);
	let answer: { slots?: unknown; calendarBlocked?: unknown };
	try {
		answer = (await bookingServiceApiRequest.call(
			this,
			{
				method: 'GET',
				path: `/event-types/${attempt.eventTypeId}/slots`,
				qs: { from, to, timezone: attempt.zone },
				scope: 'event_types:read',
				timeoutMs: attempt.timeoutMs,
				maxAttempts: 1,
			},
			itemIndex,
		)) as typeof answer;
	} catch {
		return error;
	}
	const rangeStart = startOfDay(day, attempt.zone);
	const rangeEnd = startOfDay(day + DAYS_AFTER + 1, attempt.zone);
	const freeTimes = (Array.isArray(answer.slots) ? answer.slots : [])
		.map((slot) => Date.parse(String(slot)))
		.filter((instant) => !Number.isNaN(instant) && instant >= rangeStart - DAY_MS && instant < rangeEnd)
		.sort((a, b) => a - b);
	const text = whyStartNotFree(start, freeTimes, attempt.zone);
	text.description = [
		`The service answered 409 (slot_unavailable). To say why, the node read this event type's free times around the start once (${from} to ${to}); nothing else was booked.`,
		answer.calendarBlocked === true
			? "The host's calendar could not be reached, so some of these free times may be busy."
			: '',
	]
		.filter(Boolean)
		.join(' ');
	return withServiceErrorText(this, error, text, itemIndex);
}
