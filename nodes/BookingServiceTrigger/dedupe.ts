/**
 * A bounded record of recently seen event ids, so a delivery the service sends again (retries after a timeout, the
 * contract's "more than once") starts no second execution.
 *
 * The record is a plain JSON object `{ [eventId]: firstSeenAtMs }` because it lives in the workflow's static data,
 * which n8n stores as JSON on the workflow row. It is bounded twice: entries older than `maxAgeMs` are dropped, and
 * beyond `maxEntries` the oldest go first (objects keep insertion order for non-numeric keys such as `evt_…`).
 * The functions never mutate their input: callers assign the returned record back, which is also what makes n8n
 * notice that static data changed and save it.
 */

export type SeenEventIds = Record<string, number>;

export interface DedupeLimits {
	maxEntries: number;
	maxAgeMs: number;
}

/** The service retries for days, but a retry of an event this old is rare; a day of ids keeps the record small. */
export const DEFAULT_DEDUPE_LIMITS: DedupeLimits = { maxEntries: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };

export interface DedupeOutcome {
	/** True when the id is in the record (and still fresh), i.e. the delivery must not start an execution. */
	duplicate: boolean;
	/** The record to store: pruned, and holding `eventId` (as first seen) in both cases. */
	seen: SeenEventIds;
}

/** Reads a record back from static data, ignoring anything that is not an id → timestamp entry. */
export function toSeenEventIds(value: unknown): SeenEventIds {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
	return Object.fromEntries(
		Object.entries(value).filter(
			(entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
		),
	);
}

/** Records `eventId` as seen at `nowMs` and says whether it had been seen already. */
export function checkAndRemember(
	record: SeenEventIds,
	eventId: string,
	nowMs: number,
	limits: DedupeLimits = DEFAULT_DEDUPE_LIMITS,
): DedupeOutcome {
	const oldestKept = nowMs - limits.maxAgeMs;
	const fresh = Object.entries(record).filter(([, seenAt]) => seenAt >= oldestKept);
	const previous = fresh.find(([id]) => id === eventId);
	const kept = fresh.filter(([id]) => id !== eventId);
	// Re-inserted last either way, so the entry just touched is the last to be evicted.
	kept.push([eventId, previous?.[1] ?? nowMs]);
	return {
		duplicate: previous !== undefined,
		seen: Object.fromEntries(kept.slice(-limits.maxEntries)),
	};
}

/**
 * The same record kept in this process's memory, one per scope (a subscription), with the number of scopes bounded
 * too. It backs up static data where that falls short: in test mode n8n does not keep static data between requests,
 * and two copies of one event arriving at the same moment both read static data before either saves it; this check
 * and update happen in one synchronous step, so the second copy always sees the first.
 */
export class InMemorySeenEvents {
	readonly #records = new Map<string, SeenEventIds>();
	readonly #maxScopes: number;
	readonly #limits: DedupeLimits;

	constructor(maxScopes: number, limits: DedupeLimits = DEFAULT_DEDUPE_LIMITS) {
		this.#maxScopes = maxScopes;
		this.#limits = limits;
	}

	/** Same contract as `checkAndRemember`, returning only whether the id was seen before in `scope`. */
	checkAndRemember(scope: string, eventId: string, nowMs: number): boolean {
		const outcome = checkAndRemember(this.#records.get(scope) ?? {}, eventId, nowMs, this.#limits);
		// Delete and set, so the scope used last is the last to be evicted.
		this.#records.delete(scope);
		this.#records.set(scope, outcome.seen);
		for (const oldestScope of this.#records.keys()) {
			if (this.#records.size <= this.#maxScopes) break;
			this.#records.delete(oldestScope);
		}
		return outcome.duplicate;
	}
}
