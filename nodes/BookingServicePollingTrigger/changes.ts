// Listed bookings → booking events, each change once; pure. Asked from the cursor minus OVERLAP_MS (late commits, an
// exclusive updatedSince); a change is told by comparing with the remembered state (known.ts), never by timestamp alone.
import { createHash } from 'crypto';

import type { BookingState, KnownBookings, ListedBooking } from './known';
import { formatLike, isSameState, recall, remember, time, trimKnownTracking, OVERLAP_MS } from './known';
import type { Scan } from './scanState';

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
	/** The newest updatedAt the service has shown, never later than n8n's clock when it was read (ISO); null before any. */
	cursor: string | null;
	/** Bookings created at or after this instant (ISO, the service's time) are new to this trigger. */
	since: string | null;
	known: KnownBookings;
	/**
	 * The newest change among bookings no longer remembered (ISO); null while none was let go. A booking cancelled no
	 * later than it may have been reported cancelled already: its next change is Updated.
	 */
	forgotten?: string | null;
	/** A scan of a backlog too large for one poll, continued by the next polls. */
	scan?: Scan;
	/** Where the next scan starts when later than the position less the overlap: everything up to it has settled. */
	settledTo?: string | null;
	/** The newest change a finished scan saw, and when that scan began reading (n8n's clock, ms). */
	settling?: { newest: string; readAt: number } | null;
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

/** The start of what the next scan reads again: the position less the overlap, or where everything has settled. */
export function overlapStart(state: PollState): number {
	const settled = time(state.settledTo);
	return Math.max(time(state.cursor) - OVERLAP_MS, Number.isNaN(settled) ? Number.NEGATIVE_INFINITY : settled);
}

export function updatedSinceFor(state: PollState): string | null {
	const start = overlapStart(state);
	return Number.isNaN(start) ? null : new Date(start).toISOString();
}

/** n8n's clocks (and its mains') may disagree a little; a minute more than the overlap before anything counts settled. */
export const SETTLE_SLACK_MS = 60_000;

/**
 * After a scan is done. A change stamped up to the newest one a scan saw is committed at most an overlap after that
 * read; a later scan that began an overlap (and a slack) after it read them all, so everything up to that newest change
 * has settled: the next scan starts there, and what was kept only for reading the overlap again goes. Without this, a
 * burst is read again, and kept, until a change two minutes newer comes. A scan that first read the part of it within
 * an overlap of its newest change that late settles itself. Only n8n's clock is compared with itself.
 */
export function afterScan(state: PollState, newest: string, readAt: number, settledItself: boolean): PollState {
	if (settledItself) return { ...settle(state, time(newest)), settling: null };
	const pending = state.settling ?? null;
	const settled = pending !== null && readAt - pending.readAt >= OVERLAP_MS + SETTLE_SLACK_MS;
	const next = settled ? settle(state, time(pending.newest)) : state;
	const newer = pending === null || time(newest) > time(pending.newest);
	// A newer change starts its own wait; the same one keeps the earlier read, which settles sooner — unless n8n's clock
	// went back since (that read would lie in the future): then it waits from now.
	const waiting = pending !== null && readAt < pending.readAt ? { ...pending, readAt } : pending;
	return { ...next, settling: newer ? { newest, readAt } : settled ? null : waiting };
}

/**
 * Everything up to `settledMs` has settled: the next scan starts 1 ms after (a burst stamped in that millisecond is not
 * read, nor kept, again), and what was kept to read it again goes.
 */
function settle(state: PollState, settledMs: number): PollState {
	// Only a point past where the next scan would start anyway moves anything.
	if (!(settledMs + 1 > overlapStart(state))) return state;
	const next: PollState = { ...state, settledTo: new Date(settledMs + 1).toISOString() };
	return withKnown(next, next.known);
}

/**
 * `known` trimmed to what a later change needs, kept whole where the next reading lists again (`rereads`; default: from
 * where the next scan starts); the newest change let go raises `forgotten`.
 */
function withKnown(state: PollState, known: KnownBookings, rereads?: (updatedMs: number) => boolean): PollState {
	const from = overlapStart(state);
	const trimmed = trimKnownTracking(known, time(state.cursor), rereads ?? ((updatedMs) => !(updatedMs < from)));
	const before = time(state.forgotten);
	const newest = Math.max(Number.isNaN(before) ? Number.NEGATIVE_INFINITY : before, trimmed.newestForgottenMs);
	const forgotten = Number.isFinite(newest) ? new Date(newest).toISOString() : (state.forgotten ?? null);
	const next = { ...state, known: trimmed.known, forgotten };
	// More to read again than is kept: the next reading starts after what was let go, so none of it is read as new.
	const cutMs = trimmed.rereadCutMs + 1;
	if (Number.isFinite(cutMs) && !(cutMs <= time(state.settledTo))) next.settledTo = new Date(cutMs).toISOString();
	return next;
}

const BY_STATUS: Record<string, PolledEvent> = {
	cancelled: 'booking.cancelled',
	no_show: 'booking.no_show',
	completed: 'booking.completed',
};

// With a remembered state: a new status says it (first confirmed = created), else new times = rescheduled, else
// updated. Without: a status says itself (unless cancelled before, see below), and a confirmed booking made since the
// trigger started is created when the booking shows it cannot have been seen confirmed and let go (isFirstSight).
export function classify(
	previous: BookingState | undefined,
	booking: ListedBooking,
	sinceMs: number,
	forgottenMs: number,
): { type: PolledEvent; previous?: { start: string; end: string } } {
	if (previous === undefined) {
		// Cancelled before the trigger started, or no later than a change it has let go of (so reported then): this
		// change is another one.
		const cancelledMs = time(booking.cancellation?.at);
		if (booking.status === 'cancelled' && (cancelledMs < sinceMs || cancelledMs <= forgottenMs)) {
			return { type: 'booking.updated' };
		}
		if (BY_STATUS[booking.status]) return { type: BY_STATUS[booking.status] };
		const madeSince = !Number.isNaN(sinceMs) && time(booking.createdAt) >= sinceMs;
		return { type: booking.status === 'confirmed' && madeSince && isFirstSight(booking) ? 'booking.created' : 'booking.updated' };
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

/**
 * Whether a confirmed booking the trigger does not remember is one it never saw confirmed: the trigger keeps every
 * confirmed booking until its start has passed, so one unchanged since it was made, or changed before its start, was
 * not let go (but beyond MAX_UPCOMING upcoming bookings).
 */
function isFirstSight(booking: ListedBooking): boolean {
	const updatedMs = time(booking.updatedAt);
	return time(booking.createdAt) === updatedMs || time(booking.start) > updatedMs;
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

/** Every change updates the state, whether or not its event is emitted (the caller filters). */
export function detectChanges<B extends ListedBooking>(
	state: PollState,
	bookings: B[],
	rereads?: (updatedMs: number) => boolean,
	reachMs = Number.POSITIVE_INFINITY,
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
		const previous = recall(known, booking.id);
		if (previous !== undefined && isSameState(previous, booking)) continue;
		remember(known, booking);
		// Never seen, and last changed before the trigger's start (a first sync's Start From, or just before
		// activation): known from now on, but no change to report.
		if (previous === undefined && time(booking.updatedAt) < sinceMs) continue;
		events.push(eventFor(booking, previous, sinceMs, forgottenMs));
		// Never past `reachMs` (n8n's clock when the scan asked: a change stamped ahead moves it no further), never back.
		const positionMs = Math.min(time(booking.updatedAt), reachMs);
		if (Number.isNaN(cursorMs) || positionMs > cursorMs) cursorMs = positionMs;
	}

	const cursor = Number.isNaN(cursorMs) ? state.cursor : new Date(cursorMs).toISOString();
	return { events, state: withKnown({ ...state, cursor }, known, rereads) };
}
