/**
 * What each trigger last ran per booking: the booking's state (its `updatedAt`) and which kinds of event ran for that
 * state, under which event ids. Signed deliveries are proven by their signature and need none of this; it serves the
 * check against the service (apiCheck.ts), which proves a booking state but not the event: a request repeating a
 * booking's current record (a captured delivery) under a new event id, or under another event kind, would pass that
 * check. With this memory such a request is refused for as long as the booking is remembered, whatever its age:
 *
 * - the same state and kind under another event id: a replay (the service sends one event per change);
 * - `booking.created` for a booking that already ran in an earlier state: a booking is created once;
 * - another kind for a state a signed event already reported: one change, one event.
 *
 * Bounded: the last MAX_BOOKINGS bookings per trigger, for the MAX_SCOPES triggers that ran events last. Per process
 * and lost on a restart, like the event ids (answers.ts explains why not in static data).
 */
import { setAsNewest } from '../shared/setAsNewest';

export interface BookingStateLimits {
	/** Bookings remembered per trigger, the ones that ran last. */
	maxBookings: number;
	/** Triggers remembered, the ones that ran an event last. */
	maxScopes: number;
}

export const BOOKING_STATE_LIMITS: BookingStateLimits = { maxBookings: 1_000, maxScopes: 200 };

/** The parts of a booking this memory keeps; a longer `updatedAt` than any timestamp is cut, so an entry stays small. */
const MAX_STAMP_LENGTH = 64;

interface RanKind {
	eventId: string;
	/** Ran from a signed delivery, not only confirmed against the service. */
	signed: boolean;
}

interface RanState {
	updatedAt: string;
	/** Event kind → the event that ran it; at most one entry per kind. */
	kinds: Map<string, RanKind>;
}

export type StateVerdict =
	| { verdict: 'new' }
	/** The very event that already ran (its id was forgotten by the shorter event-id memory). */
	| { verdict: 'repeat' }
	| { verdict: 'contradicted'; reason: string };

function stampOf(updatedAt: unknown): string {
	return String(updatedAt).slice(0, MAX_STAMP_LENGTH);
}

export class BookingStatesRun {
	readonly #scopes = new Map<string, Map<string, RanState>>();
	readonly #limits: BookingStateLimits;

	constructor(limits: BookingStateLimits = BOOKING_STATE_LIMITS) {
		this.#limits = limits;
	}

	/** Whether an event reporting `booking` in its state may run, given what this trigger ran for the booking before. */
	judge(scope: string, eventType: string, eventId: string, booking: { id?: unknown; updatedAt?: unknown }): StateVerdict {
		const bookingId = String(booking.id);
		const ran = this.#scopes.get(scope)?.get(bookingId);
		if (ran === undefined) return { verdict: 'new' };
		const sameState = ran.updatedAt === stampOf(booking.updatedAt);
		const sameKind = sameState ? ran.kinds.get(eventType) : undefined;
		if (sameKind !== undefined) {
			if (sameKind.eventId === eventId) return { verdict: 'repeat' };
			return {
				verdict: 'contradicted',
				reason: `booking ${bookingId} in this state already ran as ${eventType} event ${sameKind.eventId}, and the service sends one event per change (a replay)`,
			};
		}
		if (eventType === 'booking.created' && !sameState) {
			return {
				verdict: 'contradicted',
				reason: `booking ${bookingId} already ran in an earlier state, and a booking is created once`,
			};
		}
		const signedKind = sameState ? [...ran.kinds].find(([, kind]) => kind.signed)?.[0] : undefined;
		if (signedKind !== undefined) {
			return {
				verdict: 'contradicted',
				reason: `a signed ${signedKind} event already reported booking ${bookingId} in this state, and one change is one event`,
			};
		}
		return { verdict: 'new' };
	}

	/** Records that `eventType` ran for `booking` in its state. A new state replaces what was kept for the booking. */
	record(
		scope: string,
		eventType: string,
		eventId: string,
		booking: { id?: unknown; updatedAt?: unknown },
		signed: boolean,
	): void {
		const bookings = this.#scopes.get(scope) ?? new Map<string, RanState>();
		setAsNewest(this.#scopes, scope, bookings, this.#limits.maxScopes);
		const bookingId = String(booking.id);
		const updatedAt = stampOf(booking.updatedAt);
		const previous = bookings.get(bookingId);
		const state: RanState =
			previous !== undefined && previous.updatedAt === updatedAt ? previous : { updatedAt, kinds: new Map() };
		state.kinds.set(eventType, { eventId, signed });
		setAsNewest(bookings, bookingId, state, this.#limits.maxBookings);
	}

	/** Entries held now, for the test that proves the bounds. */
	get size(): { scopes: number; bookings: number } {
		let bookings = 0;
		for (const scope of this.#scopes.values()) bookings += scope.size;
		return { scopes: this.#scopes.size, bookings };
	}
}
