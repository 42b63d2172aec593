import { createHash } from 'node:crypto';

/**
 * Deterministic identifiers and secrets. Everything is derived from the seed with SHA-256, so a
 * given seed yields the same ids, keys and secrets on every run (reproducible tests, stable sandbox
 * keys across restarts). This is a test double: none of these values is secret in any real sense.
 */
export class IdFactory {
	readonly #seed: number;
	#counter = 0;

	constructor(seed: number) {
		this.#seed = seed;
	}

	/** A fresh 24-character lowercase hex resource id (contract: `^[0-9a-f]{24}$`). */
	id(): string {
		return this.hex(24);
	}

	/** A fresh hex string of the given length; every call advances the sequence. */
	hex(length: number): string {
		this.#counter += 1;
		return derive(`${this.#seed}:seq:${this.#counter}`, length);
	}

	/** A value that depends only on the seed and a name, not on how many ids were drawn before it. */
	named(name: string, length: number): string {
		return derive(`${this.#seed}:named:${name}`, length);
	}
}

function derive(input: string, length: number): string {
	let out = '';
	for (let block = 0; out.length < length; block += 1) {
		out += createHash('sha256').update(`${input}:${block}`).digest('hex');
	}
	return out.slice(0, length);
}

/** A seeded pseudo-random generator (mulberry32) for shuffles and generated data. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
