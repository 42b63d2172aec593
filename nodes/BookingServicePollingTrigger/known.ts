// The last state seen of each booking, one short string per booking in static data. A trim keeps what a later change
// needs: in-flight (a payment makes them created), upcoming (a move is a reschedule), inside the overlap, recent.

/** How far each poll reaches back before the newest change seen. */
export const OVERLAP_MS = 2 * 60_000;
/** Bookings held or awaiting payment, kept until they leave that state. */
export const MAX_IN_FLIGHT = 10_000;
/** Confirmed bookings that have not started yet (by the service's clock), kept so any of them can be rescheduled. */
export const MAX_UPCOMING = 20_000;
/**
 * Bookings the next reading lists again, kept so none is reported twice; beyond this many, the oldest are let go and
 * the next reading starts after them (a change written late among them is then lost, never one reported twice).
 */
export const MAX_IN_OVERLAP = 50_000;
/** Of all other bookings (past, cancelled, completed…), the ones that changed last: their next change is told right. */
export const MAX_RECENT = 500;

export interface BookingState {
	status: string;
	startMs: number;
	endMs: number;
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
	cancellation?: { at?: string } | null;
}

/** By booking key (keyOf), in the order the bookings last changed (oldest first). */
export type KnownBookings = Record<string, string>;

/** A booking id as a key of the record: the contract's 24 hex characters in 16 of base64url; any other id as it is. */
export function keyOf(id: string): string {
	return /^[0-9a-f]{24}$/.test(id) ? Buffer.from(id, 'hex').toString('base64url') : id;
}

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
		updatedAt: booking.updatedAt,
	};
}

/**
 * `c|<start>|<duration>|<updatedAt>`, times in milliseconds and base 36, updatedAt too when it is a plain ISO time in
 * milliseconds (`~` marks it; any other spelling is kept as written): about 50 bytes of JSON with the key.
 */
export function encodeState(state: BookingState): string {
	const status = STATUS_CODES[state.status] ?? state.status;
	const updatedMs = time(state.updatedAt);
	const updated =
		!Number.isNaN(updatedMs) && new Date(updatedMs).toISOString() === state.updatedAt
			? `~${updatedMs.toString(36)}`
			: state.updatedAt;
	return `${status}|${state.startMs.toString(36)}|${(state.endMs - state.startMs).toString(36)}|${updated}`;
}

export function decodeState(text: unknown): BookingState | undefined {
	if (typeof text !== 'string') return undefined;
	const parts = text.split('|');
	// Five parts: the earlier spelling, with the creation time (no longer kept) before updatedAt.
	const [status, start, duration, written] = parts.length === 5 ? [...parts.slice(0, 3), parts[4]] : parts;
	const startMs = parseInt(start, 36);
	const durationMs = parseInt(duration, 36);
	if (!status || Number.isNaN(startMs) || Number.isNaN(durationMs) || !written) return undefined;
	const updatedAt = written.startsWith('~') ? new Date(parseInt(written.slice(1), 36)).toISOString() : written;
	return { status: STATUS_NAMES[status] ?? status, startMs, endMs: startMs + durationMs, updatedAt };
}

export function isSameState(known: BookingState, booking: ListedBooking): boolean {
	return (
		known.status === booking.status &&
		known.updatedAt === booking.updatedAt &&
		known.startMs === time(booking.start) &&
		known.endMs === time(booking.end)
	);
}

/**
 * Keeps what a later change needs — in flight, upcoming, changed when the next reading will list them again
 * (`rereads`; default: since the position less the overlap), and the MAX_RECENT changed last — and says the newest
 * change let go (no booking let go was made later) and, when more than MAX_IN_OVERLAP would be listed again, the
 * newest change among those let go of them: the next reading must start after it (`rereadCutMs`).
 */
export function trimKnownTracking(
	known: KnownBookings,
	cursorMs: number,
	rereads: (updatedMs: number) => boolean = (updatedMs) => !(updatedMs < cursorMs - OVERLAP_MS),
): { known: KnownBookings; newestForgottenMs: number; rereadCutMs: number } {
	const nowMs = Number.isNaN(cursorMs) ? Number.NEGATIVE_INFINITY : cursorMs;
	const counts = { inFlight: 0, upcoming: 0, recent: 0 };
	// Newest first: in flight and upcoming decided, the rest listed again or not.
	const entries = Object.entries(known)
		.reverse()
		.flatMap(([key, text]) => {
			const state = decodeState(text);
			if (state === undefined) return [];
			const updatedMs = time(state.updatedAt);
			const held =
				(IN_FLIGHT.has(state.status) && counts.inFlight++ < MAX_IN_FLIGHT) ||
				(state.status === 'confirmed' && state.startMs > nowMs && counts.upcoming++ < MAX_UPCOMING);
			return [{ key, text, updatedMs, held, reread: !held && rereads(updatedMs) }];
		});
	// Only changes at or before the position count: one stamped ahead of n8n's clock is kept until the clock passes it
	// (bounded by time, not count), so the cut never moves the next reading past n8n's clock.
	const rereadTimes = entries
		.filter((entry) => entry.reread && !(entry.updatedMs > cursorMs))
		.map((entry) => entry.updatedMs);
	// Too many to keep: the oldest go, every one stamped alike with them too, so the next reading can start after them.
	const rereadCutMs =
		rereadTimes.length > MAX_IN_OVERLAP
			? rereadTimes.sort((a, b) => b - a)[MAX_IN_OVERLAP]
			: Number.NEGATIVE_INFINITY;
	const kept: Array<[string, string]> = [];
	let newestForgottenMs = Number.NEGATIVE_INFINITY;
	for (const entry of entries) {
		const keep = entry.held || (entry.reread && entry.updatedMs > rereadCutMs) || counts.recent++ < MAX_RECENT;
		if (keep) kept.push([entry.key, entry.text]);
		else newestForgottenMs = Math.max(newestForgottenMs, entry.updatedMs || nowMs);
	}
	return { known: Object.fromEntries(kept.reverse()), newestForgottenMs, rereadCutMs };
}

export function trimKnown(known: KnownBookings, cursorMs: number): KnownBookings {
	return trimKnownTracking(known, cursorMs).known;
}

export function recall(known: KnownBookings, id: string): BookingState | undefined {
	return decodeState(known[keyOf(id)]);
}

/** Remembers a booking's state as its latest change (moved to the end of the record's order). */
export function remember(known: KnownBookings, booking: ListedBooking): void {
	const key = keyOf(booking.id);
	delete known[key];
	known[key] = encodeState(stateOf(booking));
}

/** A time as the booking's own fields write it (with or without milliseconds), for `previous`. */
export function formatLike(sample: string, epochMs: number): string {
	const iso = new Date(epochMs).toISOString();
	return /\.\d+Z$/.test(sample) || !iso.endsWith('.000Z') ? iso : iso.replace('.000Z', 'Z');
}
