/**
 * A bounded record of recently seen event ids, so a delivery the service sends again (retries after a timeout, the
 * contract's "more than once") starts no second execution.
 *
 * The record lives in this process's memory, never in the workflow's static data: n8n saves a `webhook()`'s static
 * data as one JSON value read when the request arrived, so writing it there could overwrite a subscription record
 * that main stored meanwhile (see the node). It is therefore per n8n process and lost on a restart; the README's
 * "Duplicates" section says what that means and how Remove Duplicates makes it durable.
 */

import { setAsNewest } from '../shared/setAsNewest';

export interface DedupeLimits {
	maxEntries: number;
	maxAgeMs: number;
}

/** The service retries for days, but a retry of an event this old is rare; a day of ids keeps the record small. */
export const DEFAULT_DEDUPE_LIMITS: DedupeLimits = { maxEntries: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };

/**
 * One record per scope (a subscription), with the number of scopes bounded too. A check and its update happen in
 * one synchronous step, so of two copies of an event arriving at the same moment the second sees the first.
 *
 * Each scope's ids are a Map in arrival order, updated in place: the oldest are at the front, where expiry and
 * eviction take them from, and a check is a lookup.
 */
export class InMemorySeenEvents {
	readonly #records = new Map<string, Map<string, number>>();
	readonly #maxScopes: number;
	readonly #limits: DedupeLimits;

	constructor(maxScopes: number, limits: DedupeLimits = DEFAULT_DEDUPE_LIMITS) {
		this.#maxScopes = maxScopes;
		this.#limits = limits;
	}

	/** Whether `eventId` was seen in `scope` and has not expired, without recording anything. */
	wasSeen(scope: string, eventId: string, nowMs: number): boolean {
		const firstSeenAt = this.#records.get(scope)?.get(eventId);
		return firstSeenAt !== undefined && firstSeenAt >= nowMs - this.#limits.maxAgeMs;
	}

	/**
	 * Records `eventId` as seen in `scope` at `nowMs` and says whether it had been seen there already (and not expired).
	 * A duplicate keeps its first-seen time, so retries cannot keep an id alive.
	 */
	checkAndRemember(scope: string, eventId: string, nowMs: number): boolean {
		const seen = this.#records.get(scope) ?? new Map<string, number>();
		// The scope used last is the last to be evicted.
		setAsNewest(this.#records, scope, seen, this.#maxScopes);

		const oldestKept = nowMs - this.#limits.maxAgeMs;
		for (const [id, seenAt] of seen) {
			if (seenAt >= oldestKept) break;
			seen.delete(id);
		}
		const firstSeenAt = seen.get(eventId);
		if (firstSeenAt !== undefined && firstSeenAt >= oldestKept) return true;
		// New, or expired yet still here behind a fresher id because the clock was set back: it arrives anew, at the end.
		setAsNewest(seen, eventId, nowMs, this.#limits.maxEntries);
		return false;
	}
}
