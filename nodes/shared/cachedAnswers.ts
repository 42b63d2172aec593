// A cache of answers that cost a request, for what a node may be asked for again and again whatever arrives (the
// webhook trigger's key owners): one ask per key per time-to-live, bounded in keys.
import { setAsNewest } from './setAsNewest';

/** An answer, and when it was asked. */
export type Answer<T> = { askedMs: number; answer: Promise<T> };

/** An answer per key, asked again once `ttlMs` passed (or the clock went back); the last `kept`. */
export class CachedAnswers<T> {
	readonly #byKey = new Map<string, Answer<T>>();

	readonly ttlMs: number;
	readonly kept: number;

	constructor(ttlMs: number, kept: number) {
		this.ttlMs = ttlMs;
		this.kept = kept;
	}

	get(key: string, nowMs: number, ask: () => Promise<T>): Answer<T> {
		let entry = this.#byKey.get(key);
		if (entry === undefined || nowMs - entry.askedMs >= this.ttlMs || nowMs < entry.askedMs) {
			entry = { askedMs: nowMs, answer: ask() };
			setAsNewest(this.#byKey, key, entry, this.kept);
		}
		return entry;
	}

	get size(): number {
		return this.#byKey.size;
	}
}
