/**
 * The booking facts each trigger ran, per process: what makes a fact proven by reading the booking (apiCheck.ts) run
 * at most once, whatever the request that asked for it. A delivery checked against the service proves a fact about
 * the booking, not the event, so the fact is the unit: a booking cancelled (once per booking), marked no-show (once
 * per booking), created (once per booking), or changed after it was made — a reschedule — once per booking state (its
 * `updatedAt`). Signed events record the fact they report too, so a replay of it runs nothing in any order.
 *
 * Compact and bounded in total, not per trigger: one entry per fact — a 128-bit digest of (trigger, booking, fact) →
 * the event id that ran it — at most MAX_FACTS in this process, the ones that ran last. Lost on a restart and not shared
 * between webhook processes (answers.ts explains why not in static data).
 */
import { createHash } from 'node:crypto';


/** Facts held in this process at most (the last half of them always): the red-team test R19-12 measures the heap. */
export const MAX_FACTS = 60_000;

/** Event ids are short; one longer than this is cut, so an entry stays small. */
const MAX_EVENT_ID_LENGTH = 40;

export type FactVerdict =
	| { verdict: 'new' }
	/** The very event that already ran (its id was forgotten by the shorter event-id memory). */
	| { verdict: 'repeat' }
	/** The fact already ran under another event id: a replay, or a later event whose fact ran already. */
	| { verdict: 'ran'; eventId: string };

/** The fact an event of this kind reports about the booking, or undefined for a kind that reports none known. */
export function factOf(eventType: string, booking: { updatedAt?: unknown }): string | undefined {
	switch (eventType) {
		case 'booking.created':
		case 'booking.cancelled':
		case 'booking.no_show':
			return eventType;
		case 'booking.rescheduled':
			return `${eventType}@${String(booking.updatedAt)}`;
		default:
			return undefined;
	}
}

/**
 * Two generations instead of a strict LRU: a Map whose oldest entries are deleted one by one keeps their holes at its
 * front until it rehashes, which makes each eviction walk them. When the newer generation is full the older one is
 * dropped whole, so every fact of the last MAX_FACTS / 2 is remembered, and at most MAX_FACTS are held.
 */
export class BookingFactsRun {
	#newer = new Map<string, string>();
	#older = new Map<string, string>();
	readonly #generationSize: number;

	constructor(maxFacts: number = MAX_FACTS) {
		this.#generationSize = Math.max(1, Math.floor(maxFacts / 2));
	}

	#key(scope: string, fact: string, bookingId: unknown): string {
		const digest = createHash('sha256').update(`${scope}\n${String(bookingId)}\n${fact}`).digest();
		return digest.subarray(0, 16).toString('base64url');
	}

	/** Whether an event reporting `fact` of `booking` may run, given what this trigger ran before. */
	judge(scope: string, fact: string, eventId: string, booking: { id?: unknown }): FactVerdict {
		const key = this.#key(scope, fact, booking.id);
		const ranAs = this.#newer.get(key) ?? this.#older.get(key);
		if (ranAs === undefined) return { verdict: 'new' };
		return ranAs === eventId.slice(0, MAX_EVENT_ID_LENGTH) ? { verdict: 'repeat' } : { verdict: 'ran', eventId: ranAs };
	}

	/** Records that `fact` of `booking` ran as event `eventId`. */
	record(scope: string, fact: string, eventId: string, booking: { id?: unknown }): void {
		const key = this.#key(scope, fact, booking.id);
		this.#older.delete(key);
		if (!this.#newer.has(key) && this.#newer.size >= this.#generationSize) {
			this.#older = this.#newer;
			this.#newer = new Map();
		}
		this.#newer.set(key, eventId.slice(0, MAX_EVENT_ID_LENGTH));
	}

	/** Facts held now, for the test that proves the bound. */
	get size(): number {
		return this.#newer.size + this.#older.size;
	}
}
