// The last state seen of each booking, one short string per booking in static data. A trim keeps what a later change
// needs: in-flight (a payment makes them created), upcoming (a move is a reschedule), inside the overlap, recent.

/** How far each poll reaches back before the newest change seen. */
export const OVERLAP_MS = 2 * 60_000;
/** Bookings held or awaiting payment, kept until they leave that state. */
export const MAX_IN_FLIGHT = 10_000;
/** Confirmed bookings that have not started yet (by the service's clock), kept so any of them can be rescheduled. */
export const MAX_UPCOMING = 20_000;
/** Bookings changed inside the overlap, all kept; beyond this many in two minutes the oldest may repeat. */
export const MAX_IN_OVERLAP = 50_000;
/** Of all other bookings, the ones that changed last. */
export const MAX_RECENT = 2_000;

export interface BookingState {
	status: string;
	startMs: number;
	endMs: number;
	createdMs: number;
	/** As the service wrote it: compared as text, so a precision finer than milliseconds still tells changes apart. */
	updatedAt: string;
}

/** What a poll needs of a booking; the rest is passed through untouched. */
export interface ListedBooking {
	id: string;
	status: string;
	start: string;
	end: string;
	createdAt: string;
	updatedAt: string;
}

/** By booking id, in the order the bookings last changed (oldest first). */
export type KnownBookings = Record<string, string>;

const STATUS_CODES: Record<string, string> = {
	held: 'h',
	awaiting_payment: 'a',
	confirmed: 'c',
	cancelled: 'x',
	completed: 'd',
	no_show: 'n',
};
const STATUS_NAMES = Object.fromEntries(Object.entries(STATUS_CODES).map(([name, code]) => [code, name]));
const IN_FLIGHT = new Set(['held', 'awaiting_payment']);

export const time = (iso: string | null | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

export function stateOf(booking: ListedBooking): BookingState {
	return {
		status: booking.status,
		startMs: time(booking.start),
		endMs: time(booking.end),
		createdMs: time(booking.createdAt),
		updatedAt: booking.updatedAt,
	};
}

/**
 * `c|<start>|<duration>|<created>|<updatedAt>`, times in milliseconds and base 36, updatedAt too when it is a plain
 * ISO time in milliseconds (`~` marks it; any other spelling is kept as written): about 65 characters with the id.
 */
export function encodeState(state: BookingState): string {
	const status = STATUS_CODES[state.status] ?? state.status;
	const updatedMs = time(state.updatedAt);
	const updated =
		!Number.isNaN(updatedMs) && new Date(updatedMs).toISOString() === state.updatedAt
			? `~${updatedMs.toString(36)}`
			: state.updatedAt;
	const created = Number.isNaN(state.createdMs) ? '' : state.createdMs.toString(36);
	return `${status}|${state.startMs.toString(36)}|${(state.endMs - state.startMs).toString(36)}|${created}|${updated}`;
}

export function decodeState(text: unknown): BookingState | undefined {
	if (typeof text !== 'string') return undefined;
	const [status, start, duration, created, ...rest] = text.split('|');
	const startMs = parseInt(start, 36);
	const durationMs = parseInt(duration, 36);
	const written = rest.join('|');
	const updatedAt = written.startsWith('~') ? new Date(parseInt(written.slice(1), 36)).toISOString() : written;
	if (!status || Number.isNaN(startMs) || Number.isNaN(durationMs) || written === '') return undefined;
	const createdMs = created ? parseInt(created, 36) : Number.NaN;
	return { status: STATUS_NAMES[status] ?? status, startMs, endMs: startMs + durationMs, createdMs, updatedAt };
}

export function isSameState(known: BookingState, booking: ListedBooking): boolean {
	return (
		known.status === booking.status &&
		known.updatedAt === booking.updatedAt &&
		known.startMs === time(booking.start) &&
		known.endMs === time(booking.end)
	);
}

/** Also says the newest creation time let go: a booking created later was never forgotten. */
export function trimKnownTracking(
	known: KnownBookings,
	cursorMs: number,
): { known: KnownBookings; newestForgottenMs: number } {
	const nowMs = Number.isNaN(cursorMs) ? Number.NEGATIVE_INFINITY : cursorMs;
	const overlapStart = nowMs - OVERLAP_MS;
	const counts = { inFlight: 0, upcoming: 0, overlap: 0, recent: 0 };
	const kept: Array<[string, string]> = [];
	let newestForgottenMs = Number.NEGATIVE_INFINITY;
	const entries = Object.entries(known);
	for (let index = entries.length - 1; index >= 0; index--) {
		const state = decodeState(entries[index][1]);
		if (state === undefined) continue;
		const keep =
			(IN_FLIGHT.has(state.status) && counts.inFlight++ < MAX_IN_FLIGHT) ||
			(state.status === 'confirmed' && state.startMs > nowMs && counts.upcoming++ < MAX_UPCOMING) ||
			(!(time(state.updatedAt) < overlapStart) && counts.overlap++ < MAX_IN_OVERLAP) ||
			counts.recent++ < MAX_RECENT;
		if (keep) kept.push(entries[index]);
		else newestForgottenMs = Math.max(newestForgottenMs, Number.isNaN(state.createdMs) ? nowMs : state.createdMs);
	}
	return { known: Object.fromEntries(kept.reverse()), newestForgottenMs };
}

export function trimKnown(known: KnownBookings, cursorMs: number): KnownBookings {
	return trimKnownTracking(known, cursorMs).known;
}

/** Remembers a booking's state as its latest change (moved to the end of the record's order). */
export function remember(known: KnownBookings, booking: ListedBooking): void {
	delete known[booking.id];
	known[booking.id] = encodeState(stateOf(booking));
}

/** A time as the booking's own fields write it (with or without milliseconds), for `previous`. */
export function formatLike(sample: string, epochMs: number): string {
	const iso = new Date(epochMs).toISOString();
	return /\.\d+Z$/.test(sample) || !iso.endsWith('.000Z') ? iso : iso.replace('.000Z', 'Z');
}
