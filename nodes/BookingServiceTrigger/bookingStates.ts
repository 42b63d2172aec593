// The booking facts each trigger ran in this process, so a fact proven by reading the booking (apiCheck.ts) runs at
// most once: cancelled, no-show and created once per booking, a reschedule once per `updatedAt`. Signed events record
// theirs too. Bounded in total (MAX_FACTS, 128-bit digests); lost on a restart (answers.ts says why not static data).
import { createHash } from 'node:crypto';


/** Facts held in this process at most (the last half of them always): the red-team test R19-12 measures the heap. */
export const MAX_FACTS = 60_000;

/** Marks a fact that ran from a request checked against the service (never a character of an event id). */
const CHECKED_MARK = ' ';

/** Event ids are short; one longer than this is cut, so an entry stays small. */
const MAX_EVENT_ID_LENGTH = 40;

export type FactVerdict =
	| { verdict: 'new' }
	/** The very event that already ran (its id was forgotten by the shorter event-id memory). */
	| { verdict: 'repeat' }
	/** The fact already ran under another event id: a replay, or a later event whose fact ran already. */
	| { verdict: 'ran'; eventId: string; checked: boolean };

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

// Two generations, not a strict LRU: deleting a Map's oldest entries one by one leaves holes at its front that every
// eviction walks until it rehashes. The last MAX_FACTS / 2 facts are always remembered.
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

	judge(scope: string, fact: string, eventId: string, booking: { id?: unknown }): FactVerdict {
		const key = this.#key(scope, fact, booking.id);
		const ranAs = this.#newer.get(key) ?? this.#older.get(key);
		if (ranAs === undefined) return { verdict: 'new' };
		const checked = ranAs.startsWith(CHECKED_MARK);
		const ranId = checked ? ranAs.slice(CHECKED_MARK.length) : ranAs;
		return ranId === eventId.slice(0, MAX_EVENT_ID_LENGTH) ? { verdict: 'repeat' } : { verdict: 'ran', eventId: ranId, checked };
	}

	/** `checked`: the fact ran from a request checked against the service, not from a signed delivery. */
	record(scope: string, fact: string, eventId: string, booking: { id?: unknown }, checked = false): void {
		const key = this.#key(scope, fact, booking.id);
		this.#older.delete(key);
		if (!this.#newer.has(key) && this.#newer.size >= this.#generationSize) {
			this.#older = this.#newer;
			this.#newer = new Map();
		}
		this.#newer.set(key, (checked ? CHECKED_MARK : '') + eventId.slice(0, MAX_EVENT_ID_LENGTH));
	}

	/** Facts held now, for the test that proves the bound. */
	get size(): number {
		return this.#newer.size + this.#older.size;
	}
}
