// What unverified requests may cost, in this process's memory like memory.ts: a budget per account, each trigger's
// share, and answers that serve a flood: whose each key is, and the bookings listed lately. A listing read lists the
// newest changes, then goes on from where the last stopped, back four days: a backlog is covered over the retries.
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CachedAnswers } from '../shared/cachedAnswers';
import { fetchListPage, MAX_PAGE_SIZE } from '../shared/paging';
import type { ListPageRequest } from '../shared/paging';
import { setAsNewest } from '../shared/setAsNewest';
import { TokenBucket } from '../shared/tokenBucket';
import type { BudgetLimits } from '../shared/tokenBucket';
import { LOOKUP_TIMEOUT_MS } from './service';

/** The contract shows no rate limit: what unverified requests may cost an account (and Base URL) per process, any 60 s. */
export const UNVERIFIED_REQUESTS_PER_MINUTE = 90;
/** A burst for the deliveries of many triggers at n8n's start; the rest of the bound refilled over each minute. */
export const ACCOUNT_BUDGET: BudgetLimits = { burst: 60, perSecond: (UNVERIFIED_REQUESTS_PER_MINUTE - 60) / 60 };
/** Far more than the accounts or keys of any real n8n; each entry is a few numbers. */
const KEPT = 1_000;
// The service retries a delivery for at least three days (a subscription is disabled only after failures spanning
// three days, contract Delivery rules 5); a day more. An older booking's facts cannot be announced on demand.
export const RETRY_HORIZON_MS = 4 * 24 * 60 * 60 * 1000;

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

	readonly sharesTracked = () => this.#shares.size;
}

/** Whose each API key is (GET /me), a failure too: floods at the triggers of any key ask once a minute. */
export const keyOwners = new CachedAnswers<{ accountId: string } | { failure: unknown }>(60_000, KEPT);

export const workBudget = new WorkBudget();

type Pass = { qs: IDataObject; cursor?: string }; // a read through the account's changes, and where it stopped

/** The bookings listed last over all accounts (a few KB each), so a flood at one account cannot evict another's pass. */
export const KEPT_LISTED = 10_000;
const listed = new Map<string, { booking: IDataObject; readMs: number }>(); // it shows nothing after readMs
const listings = new Map<string, { pass?: Pass; readMs: number; reading?: Promise<void> }>();
export const listingsKept = () => ({ accounts: listings.size, bookings: listed.size });

/** The newest page, then up to four of the pass's next while the account's budget allows (each paid before it is asked). */
async function readOn(context: IWebhookFunctions, account: string, pass: Pass | undefined, sinceMs: number) {
	const read: IDataObject[] = [];
	let next: Pass | undefined = { qs: { updatedSince: new Date(sinceMs).toISOString(), sort: '-updatedAt' } };
	for (let page = 0; page < 5 && next !== undefined; page++) {
		if (page > 0 && !workBudget.account(account).take(Date.now())) break;
		const request: ListPageRequest = { path: '/bookings', limit: MAX_PAGE_SIZE, maxAttempts: 1, ...next };
		request.deadline = Date.now() + LOOKUP_TIMEOUT_MS; // a page each: a request waits for the read 4 s at most (RT8-2)
		const refusal = (error?: { httpCode?: unknown }) => ({ refused: /^4(?!29)/.test(String(error?.httpCode)) });
		const answer = await fetchListPage.call(context, request).catch(refusal);
		// What was read before a failure counts. A cursor refused (its lifetime is not shown): the next read starts again.
		if ('refused' in answer && answer.refused && page > 0) pass = undefined;
		if ('refused' in answer) break;
		read.push(...(answer.items as IDataObject[]));
		const after: Pass | undefined = answer.nextCursor ? { qs: next.qs, cursor: answer.nextCursor } : undefined;
		if (page > 0 || pass === undefined) pass = after; // the newest page starts a pass when none is under way
		next = pass;
	}
	return { read, pass };
}

/**
 * The booking as listed for `account` since `afterMs`: kept, or read now (if due and the account's budget pays its
 * first page). `withKey` makes the read between two checks that the credential still holds the key: kept only then.
 */
export async function listedBooking(
	context: IWebhookFunctions,
	{ account, bookingId, nowMs, afterMs }: { account: string; bookingId: string; nowMs: number; afterMs: number },
	withKey: <T>(read: () => Promise<T>) => Promise<T>,
) {
	const key = `${account}/${bookingId}`;
	const shown = () => ((listed.get(key)?.readMs ?? -Infinity) >= afterMs ? listed.get(key)?.booking : undefined);
	const listing = listings.get(account) ?? { readMs: -Infinity };
	setAsNewest(listings, account, listing, KEPT);
	const due = nowMs - listing.readMs >= 10_000 || nowMs < listing.readMs; // a read at most every 10 s
	if (shown() === undefined && listing.reading === undefined && due && workBudget.account(account).take(nowMs)) {
		listing.readMs = nowMs;
		listing.reading = withKey(async () => await readOn(context, account, listing.pass, nowMs - RETRY_HORIZON_MS))
			.then(({ read, pass }) => {
				listing.pass = pass;
				for (const item of read) keepListed(account, String(item.id), item, nowMs);
			}, () => undefined)
			.finally(() => (listing.reading = undefined));
	}
	if (shown() === undefined) await Promise.race([listing.reading, sleep(LOOKUP_TIMEOUT_MS)]);
	return shown();
}

/** A booking as read, by a listing or a look-up, never over a read begun later: no older state is taken (RT8-3, RT9-1). */
export function keepListed(account: string, id: string, booking: unknown, readMs: number): void {
	const key = `${account}/${id}`;
	if (typeof booking !== 'object' || booking === null || (listed.get(key)?.readMs ?? -Infinity) > readMs) return;
	setAsNewest(listed, key, { booking, readMs }, KEPT_LISTED);
}
