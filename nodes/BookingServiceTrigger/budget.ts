// What work for requests not yet verified may cost, in this process's memory like memory.ts: a budget per account for
// what they make the node send it, each trigger's share, and answers that serve a flood (listings, whose a key is).
import type { IDataObject } from 'n8n-workflow';

import { CachedAnswers } from '../shared/cachedAnswers';
import { setAsNewest } from '../shared/setAsNewest';
import { TokenBucket } from '../shared/tokenBucket';
import type { BudgetLimits } from '../shared/tokenBucket';

/** The contract shows no rate limit: what unverified requests may cost an account (and Base URL) per process, any 60 s. */
export const UNVERIFIED_REQUESTS_PER_MINUTE = 90;
/** A burst for the deliveries of many triggers at n8n's start; the rest of the bound refilled over each minute. */
export const ACCOUNT_BUDGET: BudgetLimits = { burst: 60, perSecond: (UNVERIFIED_REQUESTS_PER_MINUTE - 60) / 60 };
/** Far more than the accounts or keys of any real n8n; each entry is a few numbers. */
const KEPT = 1_000;

/** Unverified requests' credential reads and look-ups; a share per trigger keeps one URL's flood from starving the rest. */
export class WorkBudget {
	readonly #accounts = new Map<string, TokenBucket>();
	readonly #shares = new Map<string, TokenBucket>();
	readonly #perTrigger: BudgetLimits;

	constructor(perTrigger: BudgetLimits = { burst: 20, perSecond: 0.2 }) {
		this.#perTrigger = perTrigger;
	}

	/** The bucket of requests to one account: floods at another account's triggers cannot spend it. */
	account(account: string): TokenBucket {
		const bucket = this.#accounts.get(account) ?? new TokenBucket(ACCOUNT_BUDGET);
		setAsNewest(this.#accounts, account, bucket, KEPT);
		return bucket;
	}

	/** A look-up (half the account's bucket is left to its listing); without `account`, a credential read (no request). */
	take(scope: string, nowMs: number, account?: string): boolean {
		const share = this.#shares.get(scope) ?? new TokenBucket(this.#perTrigger);
		setAsNewest(this.#shares, scope, share, KEPT);
		if (share.available(nowMs) < 1 || (account !== undefined && !this.account(account).take(nowMs, true))) return false;
		return share.take(nowMs);
	}

	get sharesTracked(): number {
		return this.#shares.size;
	}
}

/** Per account, the bookings it listed as changed last (serviceCheck.ts), read at most every 10 s; 16 accounts kept. */
export const changeListings = new CachedAnswers<Map<string, IDataObject> | undefined>(10_000, 16);
/** Whose each API key is (GET /me), a failure too: floods at the triggers of any key ask once a minute. */
export const keyOwners = new CachedAnswers<{ accountId: string } | { failure: unknown }>(60_000, KEPT);
/** The pages an account's listing reads at most: the first paid when asked, the others by the listing itself. */
export const LISTING_PAGES = 5;

export const workBudget = new WorkBudget();
