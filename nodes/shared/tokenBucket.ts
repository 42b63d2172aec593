// A rate with a burst, for what a node may spend per unit of time whatever arrives (the webhook trigger's budgets).

export type BudgetLimits = { burst: number; perSecond: number };

/** Tokens refilled at a rate up to a burst; an earlier time than the last (a clock set back, a late caller) refills nothing. */
export class TokenBucket {
	readonly #limits: BudgetLimits;
	#tokens: number;
	#updatedMs = -Infinity;

	constructor(limits: BudgetLimits) {
		this.#limits = limits;
		this.#tokens = limits.burst;
	}

	available(nowMs: number): number {
		const elapsedMs = this.#updatedMs === -Infinity ? 0 : Math.max(0, nowMs - this.#updatedMs);
		this.#tokens = Math.min(this.#limits.burst, this.#tokens + (elapsedMs / 1000) * this.#limits.perSecond);
		this.#updatedMs = Math.max(this.#updatedMs, nowMs);
		return this.#tokens;
	}

	/** `keepHalf`: only while more than half the burst is left, the rest kept for other uses. */
	take(nowMs: number, keepHalf = false): boolean {
		return this.available(nowMs) >= 1 + (keepHalf ? this.#limits.burst / 2 : 0) && this.#tokens-- >= 1;
	}
}
