/**
 * How much work requests that have not proven themselves may cost this n8n process: every credential read (n8n loads
 * and decrypts the credential) and every booking look-up done for a request whose signature is not yet verified takes
 * one token. Two buckets must both have one:
 *
 * - the process's bucket, one for all triggers: at most `burst` at once and `perSecond` after that, whatever the
 *   number of active triggers — no per-trigger limit can bound that, since a flood spread over more triggers than any
 *   bounded record holds would find a fresh share every time;
 * - the trigger's share: a flood aimed at one trigger's URL empties only its own share and leaves the rest of the
 *   process's bucket to the other triggers.
 *
 * A request finding either empty is refused (401), which the service retries. A delivery verified with a secret in
 * memory takes no token, and a secret once opened stays in memory (secretCache.ts), so a flood costs each trigger
 * one credential read, not one per request.
 */
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

	/** Takes one token if there is one. */
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

/** This process's one budget for all Booking Service Triggers. */
export const unverifiedWork = new UnverifiedWorkBudget();
