// Everything the trigger keeps in this process's memory, each part bounded (budget.ts holds what unverified work may
// cost). None of it goes to static data: n8n 2.20+ drops what webhook() writes when it starts an execution, and a
// write could put back a record main replaced meanwhile (queue mode). So all of it is per process, lost on a restart.
import { createHash } from 'crypto';
import type { IWebhookFunctions } from 'n8n-workflow';

import { setAsNewest } from '../shared/setAsNewest';
import { TwoGenerationMap } from '../shared/twoGenerationMap';
import type { StoredSubscription } from './records';
import type { SecretBinding } from './signingSecret';

/** Who remembers: one trigger node of one workflow, per n8n instance and URL kind (test or production). */
export function scopeOf(context: IWebhookFunctions): string {
	return JSON.stringify([context.getInstanceId(), context.getWorkflow().id, context.getNode().id, context.getMode()]);
}

/** What a booking can confirm: a creation, cancellation or no-show happens once per booking, a reschedule per state. */
export function factOf(eventType: string, booking: { id?: unknown; updatedAt?: unknown }): string | undefined {
	if (eventType === 'booking.rescheduled') return `${String(booking.id)}/${eventType}@${String(booking.updatedAt)}`;
	return ONCE_PER_BOOKING.includes(eventType) ? `${String(booking.id)}/${eventType}` : undefined;
}
const ONCE_PER_BOOKING = ['booking.created', 'booking.cancelled', 'booking.no_show'];

/** A checked run's event id: the same for whoever sent the request and in every process, so Remove Duplicates works. */
export const checkedEventId = (fact: string) => `chk_${createHash('sha256').update(fact).digest('hex').slice(0, 24)}`;

/** How a delivery was proven genuine: by its signature, or by reading its booking from the service. */
export type Proof = 'signed' | 'checked';

type Mark = 'event' | Proof;

/** Entries held at most (two per event), the last half always: about 7 MiB, keys being 128-bit digests of any input. */
export const MAX_RUN_RECORDS = 100_000;

export class RunMemory {
	readonly #entries: TwoGenerationMap<string, Mark>;

	constructor(maxEntries: number = MAX_RUN_RECORDS) {
		this.#entries = new TwoGenerationMap(maxEntries);
	}

	/**
	 * Checks and records in one synchronous step, so of two copies arriving together the second sees the first. A
	 * checked request proves a fact, not an event: its event id (the sender's choice) is kept only once it ran, with
	 * what it named; it never runs a fact that ran, and a signed event whose fact ran from a checked request starts
	 * nothing. Two signed events may report one fact (two changes stamped alike): both run.
	 */
	claim(scope: string, eventId: string, fact: string | undefined, proof: Proof, record = true, subject?: string) {
		// Any request may consult the ids that ran signed; only a signed one records its own (a checked id is the sender's),
		// and a checked one that ran is known by its id and what it named (noteChecked).
		const ran = (what: string) => this.#entries.get(this.#key(scope, what)) !== undefined;
		if (ran(`event:${eventId}`) || (subject !== undefined && ran(`checked:${eventId}:${subject}`))) return 'repeat';
		const eventKey = proof === 'signed' ? this.#key(scope, `event:${eventId}`) : undefined;
		const factKey = fact === undefined ? undefined : this.#key(scope, `fact:${fact}`);
		const factMark = factKey === undefined ? undefined : this.#entries.get(factKey);
		if (factMark === 'checked' || (proof === 'checked' && factMark !== undefined)) {
			if (record && eventKey !== undefined) this.#entries.set(eventKey, 'event');
			return 'factRan'; // what it reports ran already under another event id
		}
		if (!record) return 'run';
		if (eventKey !== undefined) this.#entries.set(eventKey, 'event');
		if (factKey !== undefined) this.#entries.set(factKey, proof);
		return 'run';
	}

	/** A checked request that ran, by its id and what it named: its retry is a repeat, whatever changed since (RT5-C1). */
	noteChecked(scope: string, eventId: string, subject: string): void {
		this.#entries.set(this.#key(scope, `checked:${eventId}:${subject}`), 'event');
	}

	get size(): number {
		return this.#entries.size;
	}

	#key(scope: string, what: string): string {
		return createHash('sha256').update(scope).update('\n').update(what).digest().subarray(0, 16).toString('base64url');
	}
}

/** An opened secret is trusted this long, then the credential is read again: a rotated key is noticed within it. */
export const OPENED_SECRET_TTL_MS = 5 * 60_000;
/** What a key that cannot open the secret means (rotated or switched) is asked again after this. */
export const KEY_CHANGE_TTL_MS = 60_000;
/** Far more than the subscriptions of any real n8n; only static data's sealed values can open, which no sender adds. */
export const SECRETS_KEPT = 5_000;

/** The signing secret, or why the credential's key cannot open it: a new key (the credential's print), or another account. */
export type KeyState = { secret: string } | { rotated: string } | 'switched';
/** Which key and Base URL a 'rotated' state was proven for, so a switch made since is noticed rather than inherited. */
export const keyPrint = (credential: { apiKey: string; baseUrl?: string }) =>
	createHash('sha256').update(JSON.stringify([credential.apiKey, credential.baseUrl])).digest('base64url');

const keyOf = (binding: SecretBinding, sealed: string) => JSON.stringify([binding.workflowId, binding.nodeId, sealed]);

export class SecretMemory {
	readonly #entries = new Map<string, { state: KeyState; untilMs: number }>();
	readonly #maxEntries: number;

	constructor(maxEntries: number = SECRETS_KEPT) {
		this.#maxEntries = maxEntries;
	}

	/** Undefined when nothing is remembered, or no longer: read the credential and open the secret again. */
	get(binding: SecretBinding, sealed: string, nowMs: number): KeyState | undefined {
		const key = keyOf(binding, sealed);
		const entry = this.#entries.get(key);
		if (entry === undefined || entry.untilMs <= nowMs) return undefined;
		setAsNewest(this.#entries, key, entry, this.#maxEntries); // the trigger used last is the last to be evicted
		return entry.state;
	}

	remember(binding: SecretBinding, sealed: string, state: KeyState, nowMs: number): void {
		const untilMs = nowMs + (typeof state === 'object' && 'secret' in state ? OPENED_SECRET_TTL_MS : KEY_CHANGE_TTL_MS);
		setAsNewest(this.#entries, keyOf(binding, sealed), { state, untilMs }, this.#maxEntries);
	}

	forget(binding: SecretBinding, sealed: string): void {
		this.#entries.delete(keyOf(binding, sealed));
	}

	get size(): number {
		return this.#entries.size;
	}
}

/** After a rotation, how long deliveries are confirmed through the service before the builder is told (once). */
export const ROTATION_NOTICE_AFTER_MS = 60 * 60_000;
/** Per trigger and subscription: when a checked delivery was first seen, or 'told'; the last SECRETS_KEPT. */
export const rotationsSeen = new Map<string, number | 'told'>();

/** True once per trigger and subscription: asked by a request that can carry it, the notice's time after the first. */
export function rotationNoticeDue(key: string, nowMs: number, canCarry = true): boolean {
	const seen = rotationsSeen.get(key) ?? nowMs;
	const due = canCarry && seen !== 'told' && nowMs - seen >= ROTATION_NOTICE_AFTER_MS;
	setAsNewest(rotationsSeen, key, due ? 'told' : seen, SECRETS_KEPT);
	return due;
}

/** n8n's clean-up comes right after a failed activation, in the same call; 2.41 retries a failed one within seconds. */
const RECENT_MS = 30_000;
type Activation = { untilMs: number; failed?: Set<string>; made: Map<string, StoredSubscription> };

/**
 * The last activation of each workflow's Production URLs, and apart of its Test URLs (activationKeyOf). When one
 * fails, n8n's clean-up calls `delete` on every webhook node with the static data as stored (without what the failed
 * activation made): it must not delete a subscription that may have events to deliver, nor leave one just made.
 */
export class RecentActivations {
	readonly #byKey = new Map<string, Activation>();

	/** Set before anything can fail (reading the credential included): until it ends well, a clean-up keeps all. */
	started(key: string, nowMs: number): void {
		this.#entry(key, nowMs).failed = new Set();
	}

	endedWell(key: string, nowMs: number, made?: { nodeId: string; subscription: StoredSubscription }): void {
		const entry = this.#entry(key, nowMs);
		entry.failed = undefined;
		if (made !== undefined) entry.made.set(made.nodeId, made.subscription);
	}

	/** n8n's clean-up calls delete once per node (`failed` holds those it kept for): a second is a real unpublish. */
	of(key: string, nodeId: string, nowMs: number): { failed: boolean; made?: StoredSubscription } {
		const entry = this.#byKey.get(key);
		if (entry === undefined || entry.untilMs <= nowMs) return { failed: false };
		const failed = entry.failed !== undefined && !entry.failed.has(nodeId);
		if (failed) entry.failed?.add(nodeId);
		return { failed, made: entry.made.get(nodeId) };
	}

	#entry(key: string, nowMs: number): Activation {
		const current = this.#byKey.get(key);
		const entry = current !== undefined && current.untilMs > nowMs ? current : { untilMs: 0, made: new Map() };
		entry.untilMs = nowMs + RECENT_MS;
		setAsNewest(this.#byKey, key, entry, 1_000);
		return entry;
	}
}

export const runMemory = new RunMemory();
export const secretMemory = new SecretMemory();
export const recentActivations = new RecentActivations();
/** Per trigger, subscriptions whose DELETE failed (records.ts): n8n throws a test listen's static data away. */
export const leftUndeleted = new Map<string, unknown[]>();
