// What work for requests not yet verified may cost, in this process's memory like memory.ts: the budget for credential
// reads and look-ups, and the listing of the last changes that confirms deliveries once floods have spent it.
import type { IDataObject } from 'n8n-workflow';

import { setAsNewest } from '../shared/setAsNewest';

export type BudgetLimits = { burst: number; perSecond: number };

/** Tokens refilled at a rate up to a burst; a clock set back refills nothing. */
export class TokenBucket {
	readonly #limits: BudgetLimits;
	#tokens: number;
	#updatedMs = Number.NaN;

	constructor(limits: BudgetLimits) {
		this.#limits = limits;
		this.#tokens = limits.burst;
	}

	available(nowMs: number): number {
		const elapsedMs = Number.isNaN(this.#updatedMs) ? 0 : Math.max(0, nowMs - this.#updatedMs);
		this.#tokens = Math.min(this.#limits.burst, this.#tokens + (elapsedMs / 1000) * this.#limits.perSecond);
		this.#updatedMs = nowMs;
		return this.#tokens;
	}

	take(nowMs: number): boolean {
		return this.available(nowMs) >= 1 && this.#tokens-- >= 1;
	}
}

/** The process's bucket bounds a flood spread over any number of triggers; a third each for one trigger. */
export const PROCESS_BUDGET: BudgetLimits = { burst: 100, perSecond: 10 };
export const TRIGGER_BUDGET: BudgetLimits = { burst: 30, perSecond: 3 };

/** Unverified requests' credential reads and look-ups; a share per trigger keeps one URL's flood from starving the rest. */
export class WorkBudget {
	readonly #process: TokenBucket;
	readonly #shares = new Map<string, TokenBucket>();
	readonly #perTrigger: BudgetLimits;

	constructor(processLimits: BudgetLimits = PROCESS_BUDGET, perTrigger: BudgetLimits = TRIGGER_BUDGET) {
		this.#process = new TokenBucket(processLimits);
		this.#perTrigger = perTrigger;
	}

	/** `shareOnly` for a credential read (remembered per trigger): floods elsewhere must not keep it unread. */
	take(scope: string, nowMs: number, shareOnly = false): boolean {
		const share = this.#shares.get(scope) ?? new TokenBucket(this.#perTrigger);
		setAsNewest(this.#shares, scope, share, 1_000);
		if (share.available(nowMs) < 1 || (!shareOnly && this.#process.available(nowMs) < 1)) return false;
		return share.take(nowMs) && (shareOnly || this.#process.take(nowMs));
	}

	get sharesTracked(): number {
		return this.#shares.size;
	}
}

/** How long a trigger's listing of the last changes serves (serviceCheck.confirmWithService); the triggers kept. */
export const LISTING_REFRESH_MS = 10_000;
export const LISTINGS_KEPT = 32;
/** Listings read per process beyond each trigger's one per LISTING_REFRESH_MS: many flooded triggers at once. */
export const LISTING_BUDGET: BudgetLimits = { burst: 20, perSecond: 2 };

/** Per trigger, the bookings the service listed as changed last, by id; undefined when the listing failed. */
export class ChangeListings {
	readonly #byScope = new Map<string, { takenMs: number; listing: Promise<Map<string, IDataObject> | undefined> }>();
	readonly #budget = new TokenBucket(LISTING_BUDGET);

	/** Undefined when the listing failed, or was read before `notBeforeMs` (it may predate the change asked about). */
	async read(scope: string, nowMs: number, list: () => Promise<IDataObject[]>, notBeforeMs = -Infinity) {
		let entry = this.#byScope.get(scope);
		const stale = entry === undefined || nowMs - entry.takenMs >= LISTING_REFRESH_MS || nowMs < entry.takenMs;
		if (stale && this.#budget.take(nowMs)) {
			const byId = (bookings: IDataObject[]) => new Map(bookings.map((booking) => [String(booking.id), booking]));
			entry = { takenMs: nowMs, listing: list().then(byId, () => undefined) };
			setAsNewest(this.#byScope, scope, entry, LISTINGS_KEPT);
		}
		return entry !== undefined && entry.takenMs >= notBeforeMs ? await entry.listing : undefined;
	}

	get size(): number {
		return this.#byScope.size;
	}
}

export const workBudget = new WorkBudget();
export const changeListings = new ChangeListings();
