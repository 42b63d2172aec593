/**
 * Turns the bookings `GET /bookings?updatedSince=…` returns into booking events, each change once. Pure: the state
 * goes in and comes out, so every transition, the overlap and a restart can be tested with plain data.
 *
 * How it stays exact without trusting any clock but the service's:
 * - The cursor is the newest `updatedAt` the service has shown. Each poll asks from the cursor minus OVERLAP_MS, so
 *   a change committed a little late, or an `updatedSince` that turns out to be exclusive, is still seen.
 * - The last state seen of each booking (a snapshot: status, start, end, updatedAt) recognises a change already
 *   handled — (booking id, updatedAt) seen before — and tells which change a new one is: a status moving to
 *   confirmed, cancelled, no-show or completed, or start/end moving (a reschedule, with the previous times).
 * - Snapshots of changes inside the overlap are always kept (up to MAX_IN_OVERLAP, far beyond any real burst), so
 *   the overlap never reports a change twice; older ones only for the MAX_SNAPSHOTS bookings changed last. A booking
 *   without a snapshot is judged by what it shows (see classify).
 */
import { createHash } from 'crypto';

/** The events this trigger emits: the webhook trigger's four, and two only polling can see. */
export type PolledEvent =
	| 'booking.created'
	| 'booking.rescheduled'
	| 'booking.cancelled'
	| 'booking.no_show'
	| 'booking.completed'
	| 'booking.updated';

/** How far each poll reaches back before the cursor. */
export const OVERLAP_MS = 2 * 60_000;
/** Bookings changed before the overlap whose last state is remembered; the oldest-changed are forgotten first. */
export const MAX_SNAPSHOTS = 2_000;
/** Bookings changed inside the overlap, all remembered; beyond this many in two minutes the oldest may repeat. */
export const MAX_IN_OVERLAP = 50_000;

/** What a poll needs of a booking; the rest is passed through untouched. */
export interface ListedBooking {
	id: string;
	status: string;
	start: string;
	end: string;
	createdAt: string;
	updatedAt: string;
}

/** [status, start, end, updatedAt] — short, since static data is saved whole after every emitting poll. */
type Snapshot = [string, string, string, string];

export interface PollState {
	/** The newest updatedAt the service has shown (ISO), or null before any booking was seen. */
	cursor: string | null;
	/** Bookings created at or after this instant (ISO, the service's time) are new to this trigger. */
	since: string | null;
	/** By booking id, in the order the bookings last changed (oldest first). */
	snapshots: Record<string, Snapshot>;
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
	return { cursor, since, snapshots: {} };
}

const time = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

/** The query's `updatedSince`: the cursor minus the overlap, or undefined to ask for everything. */
export function updatedSinceFor(state: PollState): string | undefined {
	const cursor = time(state.cursor);
	return Number.isNaN(cursor) ? undefined : new Date(cursor - OVERLAP_MS).toISOString();
}

/**
 * Which event a change is. With a snapshot: a new status says it (confirmed for the first time = created), else new
 * times = rescheduled, else updated. Without one (never seen, or forgotten): a confirmed booking created since this
 * trigger started is created (it was held or awaiting payment until now, which the listing leaves out); cancelled,
 * no-show and completed say themselves; any other confirmed booking changed in a way that cannot be told (it may
 * have been rescheduled, but its earlier time is unknown) is updated.
 */
export function classify(
	previous: Snapshot | undefined,
	booking: ListedBooking,
	sinceMs: number,
): { type: PolledEvent; previous?: { start: string; end: string } } {
	const byStatus: Record<string, PolledEvent> = {
		cancelled: 'booking.cancelled',
		no_show: 'booking.no_show',
		completed: 'booking.completed',
	};
	if (previous === undefined) {
		if (byStatus[booking.status]) return { type: byStatus[booking.status] };
		const createdSince = !Number.isNaN(sinceMs) && time(booking.createdAt) >= sinceMs;
		return { type: booking.status === 'confirmed' && createdSince ? 'booking.created' : 'booking.updated' };
	}
	const [status, start, end] = previous;
	if (status !== booking.status) {
		if (byStatus[booking.status]) return { type: byStatus[booking.status] };
		if (booking.status === 'confirmed' && (status === 'held' || status === 'awaiting_payment')) {
			return { type: 'booking.created' };
		}
		return { type: 'booking.updated' };
	}
	if (start !== booking.start || end !== booking.end) {
		return { type: 'booking.rescheduled', previous: { start, end } };
	}
	return { type: 'booking.updated' };
}

/** What the next polls compare a booking's changes with. */
export function snapshotOf(booking: ListedBooking): Snapshot {
	return [booking.status, booking.start, booking.end, booking.updatedAt];
}

/** The event a booking's change is, given the last state seen of it (if any). */
export function eventFor<B extends ListedBooking>(
	booking: B,
	previousState: Snapshot | undefined,
	sinceMs: number,
): BookingEvent<B> {
	const { type, previous } = classify(previousState, booking, sinceMs);
	return {
		eventId: pollEventId(booking, type),
		eventType: type,
		eventCreatedAt: booking.updatedAt,
		booking,
		...(previous ? { previous } : {}),
	};
}

/** Stable across polls and restarts, so a downstream Remove Duplicates on eventId also holds. */
export function pollEventId(booking: ListedBooking, type: PolledEvent): string {
	const digest = createHash('sha256').update(`${booking.id}|${booking.updatedAt}|${type}`).digest('hex');
	return `evt_poll_${digest.slice(0, 24)}`;
}

/**
 * One poll's bookings (any order, any duplicates) → the events, oldest change first, and the next state. Every
 * change updates the state, whether or not its event is emitted (the caller filters).
 */
export function detectChanges<B extends ListedBooking>(
	state: PollState,
	bookings: B[],
): { events: Array<BookingEvent<B>>; state: PollState } {
	const snapshots = { ...state.snapshots };
	const sinceMs = time(state.since);
	let cursorMs = time(state.cursor);
	const ordered = [...new Map(bookings.map((booking) => [`${booking.id}@${booking.updatedAt}`, booking])).values()]
		.filter((booking) => !Number.isNaN(time(booking.updatedAt)))
		.sort((a, b) => time(a.updatedAt) - time(b.updatedAt) || a.id.localeCompare(b.id));

	const events: Array<BookingEvent<B>> = [];
	for (const booking of ordered) {
		const snapshot = snapshots[booking.id];
		// Already handled (inside the overlap), or older than what this trigger already knows of the booking.
		if (snapshot !== undefined && time(snapshot[3]) >= time(booking.updatedAt)) continue;
		events.push(eventFor(booking, snapshot, sinceMs));
		delete snapshots[booking.id]; // re-inserted last: the order of the map is the order of last change
		snapshots[booking.id] = snapshotOf(booking);
		if (Number.isNaN(cursorMs) || time(booking.updatedAt) > cursorMs) cursorMs = time(booking.updatedAt);
	}

	const cursor = Number.isNaN(cursorMs) ? state.cursor : new Date(cursorMs).toISOString();
	return { events, state: bounded({ ...state, cursor, snapshots }) };
}

/**
 * Drops what the next polls cannot need: every snapshot inside the overlap stays (up to MAX_IN_OVERLAP, the most
 * recent), and of the older ones the MAX_SNAPSHOTS most recently changed.
 */
export function bounded(state: PollState): PollState {
	const overlapStart = time(state.cursor) - OVERLAP_MS;
	const entries = Object.entries(state.snapshots);
	const inOverlap = entries.filter(([, snapshot]) => !(time(snapshot[3]) < overlapStart));
	const older = entries.filter(([, snapshot]) => time(snapshot[3]) < overlapStart);
	const kept = [...older.slice(-MAX_SNAPSHOTS), ...inOverlap.slice(-MAX_IN_OVERLAP)];
	return { ...state, snapshots: Object.fromEntries(kept) };
}
