// Listed bookings → booking events, each change once; pure. Asked from the cursor minus OVERLAP_MS (late commits, an
// exclusive updatedSince); a change is told by comparing with the remembered state (known.ts), never by timestamp alone.
import { createHash } from 'crypto';

import type { BookingState, KnownBookings, ListedBooking } from './known';
import { decodeState, formatLike, isSameState, remember, time, trimKnownTracking, OVERLAP_MS } from './known';
import type { Scan } from './scan';

export type { ListedBooking };

/** The events this trigger emits: the webhook trigger's four, and two only polling can see. */
export type PolledEvent =
	| 'booking.created'
	| 'booking.rescheduled'
	| 'booking.cancelled'
	| 'booking.no_show'
	| 'booking.completed'
	| 'booking.updated';

export interface PollState {
	/** The newest updatedAt the service has shown (ISO), or null before any booking was seen. */
	cursor: string | null;
	/** Bookings created at or after this instant (ISO, the service's time) are new to this trigger. */
	since: string | null;
	known: KnownBookings;
	/** The newest creation time among bookings no longer remembered (ISO); null while none was let go. */
	forgotten?: string | null;
	/** A scan of a backlog too large for one poll, continued by the next polls. */
	scan?: Scan;
}

export interface BookingEvent<B extends ListedBooking = ListedBooking> {
	eventId: string;
	eventType: PolledEvent;
	eventCreatedAt: string;
	booking: B;
	/** Only for a reschedule whose earlier times were seen: never invented. */
	previous?: { start: string; end: string };
}

export function emptyState(cursor: string | null, since: string | null): PollState {
	return { cursor, since, known: {} };
}

export function updatedSinceFor(state: PollState): string | null {
	const cursor = time(state.cursor);
	return Number.isNaN(cursor) ? null : new Date(cursor - OVERLAP_MS).toISOString();
}

const BY_STATUS: Record<string, PolledEvent> = {
	cancelled: 'booking.cancelled',
	no_show: 'booking.no_show',
	completed: 'booking.completed',
};

// With a remembered state: a new status says it (first confirmed = created), else new times = rescheduled, else
// updated. Without: a confirmed booking created since the trigger started is created (held or awaiting payment until
// now, which the listing leaves out) unless it may have been forgotten; another change cannot be told: updated.
export function classify(
	previous: BookingState | undefined,
	booking: ListedBooking,
	sinceMs: number,
	forgottenMs: number,
): { type: PolledEvent; previous?: { start: string; end: string } } {
	if (previous === undefined) {
		if (BY_STATUS[booking.status]) return { type: BY_STATUS[booking.status] };
		const createdMs = time(booking.createdAt);
		const firstSeen = !Number.isNaN(sinceMs) && createdMs >= sinceMs && !(createdMs <= forgottenMs);
		return { type: booking.status === 'confirmed' && firstSeen ? 'booking.created' : 'booking.updated' };
	}
	if (previous.status !== booking.status) {
		if (BY_STATUS[booking.status]) return { type: BY_STATUS[booking.status] };
		if (booking.status === 'confirmed' && (previous.status === 'held' || previous.status === 'awaiting_payment')) {
			return { type: 'booking.created' };
		}
		return { type: 'booking.updated' };
	}
	if (previous.startMs !== time(booking.start) || previous.endMs !== time(booking.end)) {
		return {
			type: 'booking.rescheduled',
			previous: { start: formatLike(booking.start, previous.startMs), end: formatLike(booking.end, previous.endMs) },
		};
	}
	return { type: 'booking.updated' };
}

export function eventFor<B extends ListedBooking>(
	booking: B,
	previousState: BookingState | undefined,
	sinceMs: number,
	forgottenMs: number,
): BookingEvent<B> {
	const { type, previous } = classify(previousState, booking, sinceMs, forgottenMs);
	return {
		eventId: pollEventId(booking, type),
		eventType: type,
		eventCreatedAt: booking.updatedAt,
		booking,
		...(previous ? { previous } : {}),
	};
}

/** Stable across polls and restarts, so Remove Duplicates on eventId holds; same-stamped changes get different ids. */
export function pollEventId(booking: ListedBooking, type: PolledEvent): string {
	const digest = createHash('sha256')
		.update([booking.id, booking.updatedAt, booking.status, booking.start, booking.end, type].join('|'))
		.digest('hex');
	return `evt_poll_${digest.slice(0, 24)}`;
}

/** Bookings held or awaiting payment, listed apart: remembered (their payment will be a creation), never reported. */
export function rememberInFlight(state: PollState, bookings: ListedBooking[]): PollState {
	const known = { ...state.known };
	for (const booking of bookings) {
		const previous = decodeState(known[booking.id]);
		if (previous === undefined || !isSameState(previous, booking)) remember(known, booking);
	}
	return { ...state, known };
}

/** Every change updates the state, whether or not its event is emitted (the caller filters). */
export function detectChanges<B extends ListedBooking>(
	state: PollState,
	bookings: B[],
): { events: Array<BookingEvent<B>>; state: PollState } {
	const known = { ...state.known };
	const sinceMs = time(state.since);
	const forgottenMs = time(state.forgotten);
	let cursorMs = time(state.cursor);
	const ordered = [...new Map(bookings.map((booking) => [`${booking.id}@${booking.updatedAt}`, booking])).values()]
		.filter((booking) => !Number.isNaN(time(booking.updatedAt)))
		.sort((a, b) => time(a.updatedAt) - time(b.updatedAt) || a.id.localeCompare(b.id));

	const events: Array<BookingEvent<B>> = [];
	for (const booking of ordered) {
		const previous = decodeState(known[booking.id]);
		if (previous !== undefined && isSameState(previous, booking)) continue;
		remember(known, booking);
		// Never seen, and last changed before the trigger's start (a first sync's Start From, or just before
		// activation): known from now on, but no change to report.
		if (previous === undefined && time(booking.updatedAt) < sinceMs) continue;
		events.push(eventFor(booking, previous, sinceMs, forgottenMs));
		if (Number.isNaN(cursorMs) || time(booking.updatedAt) > cursorMs) cursorMs = time(booking.updatedAt);
	}

	const cursor = Number.isNaN(cursorMs) ? state.cursor : new Date(cursorMs).toISOString();
	const trimmed = trimKnownTracking(known, cursorMs);
	const newestForgotten = Math.max(Number.isNaN(forgottenMs) ? Number.NEGATIVE_INFINITY : forgottenMs, trimmed.newestForgottenMs);
	return {
		events,
		state: {
			...state,
			cursor,
			known: trimmed.known,
			forgotten: Number.isFinite(newestForgotten) ? new Date(newestForgotten).toISOString() : (state.forgotten ?? null),
		},
	};
}
