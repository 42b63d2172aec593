// What work for requests not yet verified may cost, in this process's memory like memory.ts: one budget for all they
// make the node send the service, each trigger's share, and the listing of the last changes serving a flooded trigger.
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

	take(nowMs: number, keepHalf = false): boolean {
		return this.available(nowMs) >= 1 + (keepHalf ? this.#limits.burst / 2 : 0) && this.#tokens-- >= 1;
	}
}

/** The contract does not show the key's rate limit: what unverified requests may cost it per process, in any 60 s. */
export const UNVERIFIED_REQUESTS_PER_MINUTE = 90;
/** A burst for the deliveries of many triggers at n8n's start; the rest of the bound refilled over each minute. */
export const PROCESS_BUDGET: BudgetLimits = { burst: 60, perSecond: (UNVERIFIED_REQUESTS_PER_MINUTE - 60) / 60 };

/** Unverified requests' credential reads and look-ups; a share per trigger keeps one URL's flood from starving the rest. */
export class WorkBudget {
	/** The process's bucket (changeListings.budget); look-ups leave half to listings and GET /me, each for a trigger. */
	readonly process: TokenBucket;
	readonly #shares = new Map<string, TokenBucket>();
	readonly #perTrigger: BudgetLimits;

	constructor(process = new TokenBucket(PROCESS_BUDGET), perTrigger: BudgetLimits = { burst: 20, perSecond: 0.2 }) {
		this.process = process;
		this.#perTrigger = perTrigger;
	}

	/** `shareOnly` for a credential read (remembered per trigger): floods elsewhere must not keep it unread. */
	take(scope: string, nowMs: number, shareOnly = false): boolean {
		const share = this.#shares.get(scope) ?? new TokenBucket(this.#perTrigger);
		setAsNewest(this.#shares, scope, share, 1_000);
		if (share.available(nowMs) < 1 || (!shareOnly && !this.process.take(nowMs, true))) return false;
		return share.take(nowMs);
	}

	get sharesTracked(): number {
		return this.#shares.size;
	}
}

/** How long a trigger's listing of the last changes serves (serviceCheck.confirmWithService); the triggers kept. */
export const LISTING_REFRESH_MS = 10_000;
export const LISTINGS_KEPT = 32;

/** Per trigger, the bookings the service listed as changed last, by id; undefined when the listing failed. */
export class ChangeListings {
	readonly #byScope = new Map<string, { takenMs: number; listing: Promise<Map<string, IDataObject> | undefined> }>();
	/** Every request unverified ones make the node send the service (workBudget's too); a listing may spend it all. */
	readonly budget = new TokenBucket(PROCESS_BUDGET);

	/** Undefined when the listing failed, or was read before `notBeforeMs` (it may predate the change asked about). */
	async read(scope: string, nowMs: number, list: () => Promise<IDataObject[]>, notBeforeMs = -Infinity) {
		let entry = this.#byScope.get(scope);
		const stale = entry === undefined || nowMs - entry.takenMs >= LISTING_REFRESH_MS || nowMs < entry.takenMs;
		if (stale && this.budget.take(nowMs)) {
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

export const changeListings = new ChangeListings();
export const workBudget = new WorkBudget(changeListings.budget);
