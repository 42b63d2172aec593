// Tokens for work done for a request not yet verified (a credential read, which n8n decrypts; a booking look-up). The
// process's bucket bounds it whatever the number of triggers (a flood spread over triggers finds fresh shares); each
// trigger's share keeps a flood at one URL from starving the others. Empty → 401, which the service retries.
import { setAsNewest } from '../shared/setAsNewest';

export interface BudgetLimits {
	burst: number;
	perSecond: number;
}

export const UNVERIFIED_WORK_LIMITS: BudgetLimits = { burst: 100, perSecond: 10 };
/** A third of the process's: three flooded triggers at once leave a tenth of it to the others. */
export const PER_TRIGGER_LIMITS: BudgetLimits = { burst: 30, perSecond: 3 };
/** Triggers whose share is tracked, the ones that asked last; one forgotten starts again with a full share. */
const TRIGGER_SHARES_KEPT = 1_000;

export class TokenBucket {
	readonly #limits: BudgetLimits;
	#tokens: number;
	#updatedMs: number | undefined;

	constructor(limits: BudgetLimits) {
		this.#limits = limits;
		this.#tokens = limits.burst;
	}

	/** Whether a token is there now (after refilling for the time passed). A clock set back refills nothing. */
	has(nowMs: number): boolean {
		const elapsedMs = this.#updatedMs === undefined ? 0 : Math.max(0, nowMs - this.#updatedMs);
		this.#tokens = Math.min(this.#limits.burst, this.#tokens + (elapsedMs / 1000) * this.#limits.perSecond);
		this.#updatedMs = nowMs;
		return this.#tokens >= 1;
	}

	take(nowMs: number): boolean {
		if (!this.has(nowMs)) return false;
		this.#tokens -= 1;
		return true;
	}
}

export class UnverifiedWorkBudget {
	readonly #process: TokenBucket;
	readonly #shares = new Map<string, TokenBucket>();
	readonly #perTrigger: BudgetLimits;

	constructor(processLimits: BudgetLimits = UNVERIFIED_WORK_LIMITS, perTrigger: BudgetLimits = PER_TRIGGER_LIMITS) {
		this.#process = new TokenBucket(processLimits);
		this.#perTrigger = perTrigger;
	}

	/** Takes a token from the trigger's share and the process's bucket, or from neither when either is empty. */
	take(trigger: string, nowMs: number): boolean {
		const share = this.#shares.get(trigger) ?? new TokenBucket(this.#perTrigger);
		setAsNewest(this.#shares, trigger, share, TRIGGER_SHARES_KEPT);
		if (!share.has(nowMs) || !this.#process.has(nowMs)) return false;
		return share.take(nowMs) && this.#process.take(nowMs);
	}

	/** Shares tracked now, for the test that proves the record stays bounded. */
	get sharesTracked(): number {
		return this.#shares.size;
	}
}

export const unverifiedWork = new UnverifiedWorkBudget();
