/**
 * How much work requests that have not proven themselves may cost this n8n process: every credential read (n8n loads
 * and decrypts the credential) and every booking look-up done for a request whose signature is not yet verified takes
 * one token, process-wide. Per-trigger limits cannot bound that — a flood spread over more triggers than any bounded
 * cache holds would miss every time — so the bound is one bucket for all triggers: at most `burst` at once and
 * `perSecond` after that, whatever the number of active triggers. A request finding the bucket empty is refused
 * (401), which the service retries; a genuine delivery of a trigger whose secret is in memory takes no token.
 */

export interface BudgetLimits {
	burst: number;
	perSecond: number;
}

export const UNVERIFIED_WORK_LIMITS: BudgetLimits = { burst: 100, perSecond: 10 };

export class TokenBucket {
	readonly #limits: BudgetLimits;
	#tokens: number;
	#updatedMs: number | undefined;

	constructor(limits: BudgetLimits) {
		this.#limits = limits;
		this.#tokens = limits.burst;
	}

	/** Takes one token if there is one. A clock set back refills nothing. */
	take(nowMs: number): boolean {
		const elapsedMs = this.#updatedMs === undefined ? 0 : Math.max(0, nowMs - this.#updatedMs);
		this.#tokens = Math.min(this.#limits.burst, this.#tokens + (elapsedMs / 1000) * this.#limits.perSecond);
		this.#updatedMs = nowMs;
		if (this.#tokens < 1) return false;
		this.#tokens -= 1;
		return true;
	}
}

/** This process's one bucket for all Booking Service Triggers. */
export const unverifiedWork = new TokenBucket(UNVERIFIED_WORK_LIMITS);
