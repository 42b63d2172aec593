/**
 * Availability (contract, GET /event-types/{id}/slots): start times laid on the event type's weekly
 * availability in the host's time zone, one every `durationMinutes`, then removed when they fall
 * inside the minimum notice, collide (with the event type's buffers around them) with a held,
 * awaiting-payment or confirmed booking of any event type or a busy time of the connected calendar,
 * or fall on a day whose booking limit is reached. POST /bookings and reschedules accept exactly
 * these start times.
 */
import type { BookingStatus } from './model.ts';
import { NOTICE_GRANULARITY_MS } from './policy.ts';
import type { EventTypeRecord, Store } from './store.ts';
import { addDays, instantOf, sameDate, wallClockAt, weekday } from './timezones.ts';
import type { CalendarDate } from './validation.ts';

/** States that occupy the host's time. */
export const BLOCKING_STATUSES: readonly BookingStatus[] = [
	'held',
	'awaiting_payment',
	'confirmed',
];

const MINUTE = 60_000;

export interface SlotSearch {
	eventType: EventTypeRecord;
	/** Half-open range [fromMs, toMs) of start instants. */
	fromMs: number;
	toMs: number;
	nowMs: number;
	/** A booking being moved does not block its own new time. */
	ignoreBookingId?: string;
}

function hostDateOf(epochMs: number, timeZone: string): CalendarDate {
	const { year, month, day } = wallClockAt(epochMs, timeZone);
	return { year, month, day };
}

export function availableStarts(store: Store, search: SlotSearch): number[] {
	const { eventType, fromMs, toMs, nowMs } = search;
	const timeZone = store.account.timezone;
	const durationMs = eventType.durationMinutes * MINUTE;
	const earliestStart =
		Math.floor(nowMs / NOTICE_GRANULARITY_MS) * NOTICE_GRANULARITY_MS +
		eventType.minimumNoticeMinutes * MINUTE;
	const blocking = [...store.bookings.values()].filter(
		(booking) =>
			BLOCKING_STATUSES.includes(booking.status) && booking.id !== search.ignoreBookingId,
	);
	const busy = [
		...blocking.map((booking) => ({ startMs: booking.startMs, endMs: booking.endMs })),
		// An unreachable calendar contributes nothing: the list is then optimistic (calendarBlocked).
		...(store.calendarReachable ? store.busy : []),
	];
	const starts: number[] = [];
	const lastDate = hostDateOf(toMs - 1, timeZone);
	for (let date = hostDateOf(fromMs, timeZone); !isAfter(date, lastDate); date = addDays(date, 1)) {
		if (eventType.maxBookingsPerDay !== null) {
			const bookedThatDay = blocking.filter(
				(booking) =>
					booking.eventTypeId === eventType.id &&
					sameDate(hostDateOf(booking.startMs, timeZone), date),
			).length;
			if (bookedThatDay >= eventType.maxBookingsPerDay) continue;
		}
		for (const window of eventType.weeklyAvailability[weekday(date)]) {
			for (
				let minute = window.startMinute;
				minute + eventType.durationMinutes <= window.endMinute;
				minute += eventType.durationMinutes
			) {
				const start = instantOf(date, minute, timeZone);
				if (start < fromMs || start >= toMs || start < earliestStart) continue;
				const guardedStart = start - eventType.bufferBeforeMinutes * MINUTE;
				const guardedEnd = start + durationMs + eventType.bufferAfterMinutes * MINUTE;
				if (busy.some((interval) => interval.startMs < guardedEnd && guardedStart < interval.endMs))
					continue;
				starts.push(start);
			}
		}
	}
	return starts.sort((a, b) => a - b);
}

/**
 * Whether a booking of `eventType` may start at `startMs` now: the time must be one of the offered
 * slots.
 */
export function isFreeStart(
	store: Store,
	eventType: EventTypeRecord,
	startMs: number,
	nowMs: number,
	ignoreBookingId?: string,
): boolean {
	return availableStarts(store, {
		eventType,
		fromMs: startMs,
		toMs: startMs + 1,
		nowMs,
		ignoreBookingId,
	}).includes(startMs);
}

function isAfter(a: CalendarDate, b: CalendarDate): boolean {
	return Date.UTC(a.year, a.month - 1, a.day) > Date.UTC(b.year, b.month - 1, b.day);
}
