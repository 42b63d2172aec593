// Recently seen event ids, so a delivery the service sends again starts no second execution. In memory, never static
// data (answers.ts runEvent says why): per process and lost on a restart (README, "Duplicates").
import { setAsNewest } from '../shared/setAsNewest';

export interface DedupeLimits {
	maxEntries: number;
	maxAgeMs: number;
}

/** The service retries for days, but a retry of an event this old is rare; a day of ids keeps the record small. */
export const DEFAULT_DEDUPE_LIMITS: DedupeLimits = { maxEntries: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };

/** A check and its update are one synchronous step, so of two copies arriving at once the second sees the first. */
export class InMemorySeenEvents {
	readonly #records = new Map<string, Map<string, number>>();
	readonly #maxScopes: number;
	readonly #limits: DedupeLimits;

	constructor(maxScopes: number, limits: DedupeLimits = DEFAULT_DEDUPE_LIMITS) {
		this.#maxScopes = maxScopes;
		this.#limits = limits;
	}

	wasSeen(scope: string, eventId: string, nowMs: number): boolean {
		const firstSeenAt = this.#records.get(scope)?.get(eventId);
		return firstSeenAt !== undefined && firstSeenAt >= nowMs - this.#limits.maxAgeMs;
	}

	/** A duplicate keeps its first-seen time, so retries cannot keep an id alive. */
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
