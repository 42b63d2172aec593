// Everything the trigger keeps in this process's memory, each part bounded: what has run (event ids and booking
// facts), the signing secrets opened, and the budget for work done for requests not yet verified. Nothing here is
// written to static data: n8n 2.20+ drops what webhook() writes when it starts an execution, and a write could put
// back a record main replaced meanwhile (queue mode). So all of it is per process and lost on a restart.
import { createHash } from 'crypto';
import type { IWebhookFunctions } from 'n8n-workflow';

import { setAsNewest } from '../shared/setAsNewest';
import type { SecretBinding } from './signingSecret';

/** Who remembers: one trigger node of one workflow, per n8n instance and URL kind (test or production). */
export function scopeOf(context: IWebhookFunctions): string {
	return JSON.stringify([context.getInstanceId(), context.getWorkflow().id, context.getNode().id, context.getMode()]);
}

/**
 * What a delivery reports that the service can confirm later by reading the booking: a creation, cancellation or
 * no-show happens once per booking, a reschedule once per state of it. Undefined for kinds the contract does not show.
 */
export function factOf(eventType: string, booking: { id?: unknown; updatedAt?: unknown }): string | undefined {
	switch (eventType) {
		case 'booking.created':
		case 'booking.cancelled':
		case 'booking.no_show':
			return `${String(booking.id)}/${eventType}`;
		case 'booking.rescheduled':
			return `${String(booking.id)}/${eventType}@${String(booking.updatedAt)}`;
		default:
			return undefined;
	}
}

/** How a delivery was proven genuine: by its signature, or by reading its booking from the service. */
export type Proof = 'signed' | 'checked';

/** run: new; repeat: this event id ran already; factRan: what it reports ran already under another event id. */
export type Claim = 'run' | 'repeat' | 'factRan';

type Mark = 'event' | Proof;

/** Entries held at most in total (two per event): the last half always, about 7 MiB at the bound. */
export const MAX_RUN_RECORDS = 100_000;

// Two generations rather than a strict LRU: deleting a Map's oldest entries one by one leaves holes at its front that
// every eviction walks. Keys are 128-bit digests, so an entry's size does not depend on what a sender chose.
export class RunMemory {
	#newer = new Map<string, Mark>();
	#older = new Map<string, Mark>();
	readonly #generationSize: number;

	constructor(maxEntries: number = MAX_RUN_RECORDS) {
		this.#generationSize = Math.max(1, Math.floor(maxEntries / 2));
	}

	/**
	 * Checks and records in one synchronous step, so of two copies arriving together the second sees the first. A
	 * checked request proves a fact, not an event: it never runs a fact that ran, and a signed event whose fact ran
	 * from a checked request starts nothing. Two signed events may report one fact (two changes stamped alike): both run.
	 */
	claim(scope: string, eventId: string, fact: string | undefined, proof: Proof): Claim {
		const eventKey = this.#key(scope, `event:${eventId}`);
		if (this.#get(eventKey) !== undefined) return 'repeat';
		const factKey = fact === undefined ? undefined : this.#key(scope, `fact:${fact}`);
		const factMark = factKey === undefined ? undefined : this.#get(factKey);
		if (proof === 'checked' && factMark !== undefined) return 'factRan';
		this.#set(eventKey, 'event');
		if (proof === 'signed' && factMark === 'checked') return 'factRan';
		if (factKey !== undefined) this.#set(factKey, proof);
		return 'run';
	}

	/** Whether this event id ran, without recording anything (a cheap check before work for an unverified request). */
	hasRun(scope: string, eventId: string): boolean {
		return this.#get(this.#key(scope, `event:${eventId}`)) !== undefined;
	}

	get size(): number {
		return this.#newer.size + this.#older.size;
	}

	#key(scope: string, what: string): string {
		return createHash('sha256').update(scope).update('\n').update(what).digest().subarray(0, 16).toString('base64url');
	}

	#get(key: string): Mark | undefined {
		return this.#newer.get(key) ?? this.#older.get(key);
	}

	#set(key: string, mark: Mark): void {
		this.#older.delete(key);
		if (!this.#newer.has(key) && this.#newer.size >= this.#generationSize) {
			this.#older = this.#newer;
			this.#newer = new Map();
		}
		this.#newer.set(key, mark);
	}
}

/** An opened secret is trusted this long, then the credential is read again: a rotated key is noticed within it. */
export const OPENED_SECRET_TTL_MS = 5 * 60_000;
/** A sealed secret that would not open is not tried again for this long: a fixed credential is picked up after it. */
export const UNREADABLE_RETRY_MS = 60_000;
/** Far more than the subscriptions of any real n8n; only static data's sealed values can open, which no sender adds. */
export const SECRETS_KEPT = 5_000;

export type Opened = { secret: string } | 'unreadable' | undefined;

const keyOf = (binding: SecretBinding, sealed: string) => JSON.stringify([binding.workflowId, binding.nodeId, sealed]);

export class SecretMemory {
	readonly #entries = new Map<string, { secret?: string; untilMs: number }>();
	readonly #maxEntries: number;

	constructor(maxEntries: number = SECRETS_KEPT) {
		this.#maxEntries = maxEntries;
	}

	/** The secret, 'unreadable' while a failed opening is remembered, or undefined: read the credential and open it. */
	get(binding: SecretBinding, sealed: string, nowMs: number): Opened {
		const key = keyOf(binding, sealed);
		const entry = this.#entries.get(key);
		if (entry === undefined || entry.untilMs <= nowMs) return undefined;
		setAsNewest(this.#entries, key, entry, this.#maxEntries); // the trigger used last is the last to be evicted
		return entry.secret === undefined ? 'unreadable' : { secret: entry.secret };
	}

	remember(binding: SecretBinding, sealed: string, secret: string | undefined, nowMs: number): void {
		const untilMs = nowMs + (secret === undefined ? UNREADABLE_RETRY_MS : OPENED_SECRET_TTL_MS);
		setAsNewest(this.#entries, keyOf(binding, sealed), { secret, untilMs }, this.#maxEntries);
	}

	get size(): number {
		return this.#entries.size;
	}
}

export interface BudgetLimits {
	burst: number;
	perSecond: number;
}

export class TokenBucket {
	readonly #limits: BudgetLimits;
	#tokens: number;
	#updatedMs = Number.NaN;

	constructor(limits: BudgetLimits) {
		this.#limits = limits;
		this.#tokens = limits.burst;
	}

	/** The tokens there now, refilled for the time passed; a clock set back refills nothing. */
	available(nowMs: number): number {
		const elapsedMs = Number.isNaN(this.#updatedMs) ? 0 : Math.max(0, nowMs - this.#updatedMs);
		this.#tokens = Math.min(this.#limits.burst, this.#tokens + (elapsedMs / 1000) * this.#limits.perSecond);
		this.#updatedMs = nowMs;
		return this.#tokens;
	}

	take(nowMs: number): boolean {
		if (this.available(nowMs) < 1) return false;
		this.#tokens -= 1;
		return true;
	}
}

/** The process's bucket bounds a flood spread over any number of triggers; a third each for one trigger. */
export const PROCESS_BUDGET: BudgetLimits = { burst: 100, perSecond: 10 };
export const TRIGGER_BUDGET: BudgetLimits = { burst: 30, perSecond: 3 };
const TRIGGER_SHARES_KEPT = 1_000;

/**
 * Tokens for work done for a request not yet verified: a credential read (n8n decrypts it) or a booking look-up.
 * Each trigger's share keeps a flood at one URL from starving the others. Empty: 401, which the service retries.
 */
export class WorkBudget {
	readonly #process: TokenBucket;
	readonly #shares = new Map<string, TokenBucket>();
	readonly #perTrigger: BudgetLimits;

	constructor(processLimits: BudgetLimits = PROCESS_BUDGET, perTrigger: BudgetLimits = TRIGGER_BUDGET) {
		this.#process = new TokenBucket(processLimits);
		this.#perTrigger = perTrigger;
	}

	take(scope: string, nowMs: number): boolean {
		const share = this.#shares.get(scope) ?? new TokenBucket(this.#perTrigger);
		setAsNewest(this.#shares, scope, share, TRIGGER_SHARES_KEPT);
		if (share.available(nowMs) < 1 || this.#process.available(nowMs) < 1) return false;
		return share.take(nowMs) && this.#process.take(nowMs);
	}

	get sharesTracked(): number {
		return this.#shares.size;
	}
}

/** n8n's clean-up calls `delete` right after a failed activation, in the same call chain: well within a minute. */
const HOLD_MS = 60_000;

/**
 * Subscriptions whose activation failed because the service could not be asked whether they are still this
 * trigger's: the `delete` of n8n's clean-up must keep them, as they may have events pending. Asking ends the hold.
 */
export class HeldSubscriptions {
	readonly #until = new Map<string, number>();

	hold = (subscriptionId: string, nowMs: number) => setAsNewest(this.#until, subscriptionId, nowMs + HOLD_MS, 1_000);

	release(subscriptionId: string, nowMs: number): boolean {
		const until = this.#until.get(subscriptionId) ?? Number.NEGATIVE_INFINITY;
		this.#until.delete(subscriptionId);
		return until > nowMs;
	}
}

export const runMemory = new RunMemory();
export const secretMemory = new SecretMemory();
export const workBudget = new WorkBudget();
export const heldSubscriptions = new HeldSubscriptions();
