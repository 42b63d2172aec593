/**
 * A bounded record of recently seen event ids, so a delivery the service sends again (retries after a timeout, the
 * contract's "more than once") starts no second execution.
 *
 * The record lives in the workflow's static data, which n8n stores as JSON on the workflow row, so it is a JSON array
 * of `[eventId, firstSeenAtMs]` pairs in arrival order, oldest first. An array rather than an object keyed by id
 * because this runs on every delivery: checking an id is a scan and recording one a copy, where an object with a
 * thousand keys had to be taken apart and rebuilt each time (milliseconds per delivery). Arrival order is also
 * first-seen order, so evicting the oldest and expiring by age drop from the same end. Records written by earlier
 * versions (`{ [eventId]: firstSeenAtMs }`) are still read.
 *
 * The record is bounded twice: entries older than `maxAgeMs` are dropped, and beyond `maxEntries` the oldest go
 * first. A duplicate changes nothing, and its first-seen time stands, so retries cannot keep an id alive.
 * The functions never mutate their input: callers store the returned record, which is what marks static data as
 * changed; a duplicate returns the input itself, so there is nothing to store. (n8n 2.41 does not save static data a
 * production `webhook()` changed, so there the in-memory record below is what drops duplicates; see the node.)
 */

import { setAsNewest } from '../shared/setAsNewest';

export type SeenEvent = readonly [eventId: string, firstSeenAtMs: number];
/** Oldest first. */
export type SeenEventIds = readonly SeenEvent[];

export interface DedupeLimits {
	maxEntries: number;
	maxAgeMs: number;
}

/** The service retries for days, but a retry of an event this old is rare; a day of ids keeps the record small. */
export const DEFAULT_DEDUPE_LIMITS: DedupeLimits = { maxEntries: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };

export interface DedupeOutcome {
	/** True when the id is in the record (and still fresh), i.e. the delivery must not start an execution. */
	duplicate: boolean;
	/** The record to store: the input itself for a duplicate, otherwise pruned and ending with `eventId`. */
	seen: SeenEventIds;
}

function isSeenEvent(entry: unknown): entry is SeenEvent {
	return (
		Array.isArray(entry) &&
		entry.length === 2 &&
		typeof entry[0] === 'string' &&
		typeof entry[1] === 'number' &&
		Number.isFinite(entry[1])
	);
}

/**
 * Reads a record back from static data, ignoring anything that is not an id and a time. A valid record is returned
 * as it is, without a copy. The object format of earlier versions is put in first-seen order: it kept an id that
 * arrived again at the end, with its first-seen time.
 */
export function toSeenEventIds(value: unknown): SeenEventIds {
	if (Array.isArray(value)) return value.every(isSeenEvent) ? (value as SeenEventIds) : value.filter(isSeenEvent);
	if (typeof value !== 'object' || value === null) return [];
	return Object.entries(value)
		.filter(isSeenEvent)
		.sort((a, b) => a[1] - b[1]);
}

/** Records `eventId` as seen at `nowMs` and says whether it had been seen already. */
export function checkAndRemember(
	record: SeenEventIds,
	eventId: string,
	nowMs: number,
	limits: DedupeLimits = DEFAULT_DEDUPE_LIMITS,
): DedupeOutcome {
	const oldestKept = nowMs - limits.maxAgeMs;
	// Arrival order is first-seen order, so the expired entries come first and the rest is kept with one copy. A clock
	// set back breaks that order; then every entry is judged by its own time, in the check and in the copy alike.
	let firstFresh = record.length;
	let expiredAfterFresh = false;
	for (let index = 0; index < record.length; index++) {
		const [id, seenAt] = record[index];
		if (seenAt < oldestKept) {
			if (firstFresh < index) expiredAfterFresh = true;
			continue;
		}
		if (firstFresh === record.length) firstFresh = index;
		if (id === eventId) return { duplicate: true, seen: record };
	}
	const seen = expiredAfterFresh ? record.filter(([, seenAt]) => seenAt >= oldestKept) : record.slice(firstFresh);
	seen.push([eventId, nowMs]);
	if (seen.length > limits.maxEntries) seen.splice(0, seen.length - limits.maxEntries);
	return { duplicate: false, seen };
}

/**
 * The same record kept in this process's memory, one per scope (a subscription), with the number of scopes bounded
 * too. It covers what static data does not: n8n 2.41 does not save static data that a production `webhook()` changed,
 * nor keep it between test requests, and two copies of one event arriving at the same moment both read static data
 * before either saves it; this check and update happen in one synchronous step, so the second copy sees the first.
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

	/** Same contract as `checkAndRemember`, returning only whether the id was seen before in `scope`. */
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
