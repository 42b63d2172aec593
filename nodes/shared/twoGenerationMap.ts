// A bounded map for many small entries written at a high rate (the webhook trigger's memory of what ran). Two
// generations rather than a strict LRU: deleting a Map's oldest entries one by one leaves holes at its front that every
// eviction walks. The newest half of the bound is always kept; a key set again moves to the newer generation.
export class TwoGenerationMap<K, V> {
	#newer = new Map<K, V>();
	#older = new Map<K, V>();
	readonly #generationSize: number;

	constructor(maxEntries: number) {
		this.#generationSize = Math.max(1, Math.floor(maxEntries / 2));
	}

	get(key: K): V | undefined {
		return this.#newer.get(key) ?? this.#older.get(key);
	}

	set(key: K, value: V): void {
		this.#older.delete(key);
		if (!this.#newer.has(key) && this.#newer.size >= this.#generationSize) {
			this.#older = this.#newer;
			this.#newer = new Map();
		}
		this.#newer.set(key, value);
	}

	get size(): number {
		return this.#newer.size + this.#older.size;
	}
}
