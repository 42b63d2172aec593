/**
 * Events and their signed deliveries (contract, Events). Each event is serialised once, so every
 * attempt and every duplicate carries the same bytes and the same `Service-Event-Id`; the signature
 * is made per attempt over `<t>.<raw body>`. Attempts for one subscription go one at a time in due
 * order; a failed attempt is retried on the simulated clock after the back-off delays, so later
 * events can overtake it (out of order, as the contract warns).
 */
import { createHmac } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { isoTime } from './clock.ts';
import type { Clock } from './clock.ts';
import { seededRandom } from './ids.ts';
import type { EventKind, WebhookEvent } from './model.ts';
import {
	DISABLE_AFTER_FAILURES,
	DISABLE_AFTER_SPAN_SECONDS,
	PREVIOUS_TIME_FIELD,
} from './policy.ts';
import { bookingResource } from './resources.ts';
import type { BookingRecord, Store, SubscriptionRecord } from './store.ts';
import { TargetRefused, approveTarget } from './webhooks.ts';
import type { ApprovedTarget } from './webhooks.ts';

export interface DeliveryLogEntry {
	eventId: string;
	type: EventKind;
	subscriptionId: string;
	url: string;
	/** 1 for the first attempt of a copy, then 2, 3, … for its retries. */
	attempt: number;
	outcome: 'delivered' | 'failed' | 'skipped';
	status?: number;
	error?: string;
	at: string;
}

export interface DeliveryMode {
	/** Extra copies of every event sent to each subscription (0: exactly one). */
	duplicates: number;
	/**
	 * Out-of-order switch: new deliveries are held back and sent, in a seeded shuffled order that
	 * differs from the emission order, at the next drain (or when the switch is turned off).
	 */
	shuffle: boolean;
}

export interface DeliverySettings {
	/** Read before every attempt, so flipping the switch applies to the next delivery. */
	allowInsecureTargets: () => boolean;
	retryDelaysSeconds: readonly number[];
	timeoutMs: number;
	seed: number;
}

interface StoredEvent {
	event: WebhookEvent;
	/** The exact bytes sent, serialised once. */
	body: string;
}

interface Job {
	/** Orders jobs due at the same instant. */
	seq: number;
	stored: StoredEvent;
	subscriptionId: string;
	/** The subscription's URL when queued, for the log even after the subscription is gone. */
	url: string;
	attempt: number;
	dueAtMs: number;
}

type AttemptResult = Pick<DeliveryLogEntry, 'outcome' | 'status' | 'error'>;

/** Bounds every waiting loop: far above any test's volume, low enough to stop a runaway. */
const MAX_ROUNDS = 100_000;

export class Deliveries {
	readonly log: DeliveryLogEntry[] = [];
	readonly events: WebhookEvent[] = [];
	readonly #settings: DeliverySettings;
	readonly #clock: Clock;
	readonly #store: () => Store;
	#random: () => number;
	#mode: DeliveryMode = { duplicates: 0, shuffle: false };
	#jobs: Job[] = [];
	#held: Job[] = [];
	#inFlight = new Set<string>();
	#seq = 0;
	/** Bumped by reset: attempts started before it finish without touching the new state. */
	#generation = 0;
	/** Aborts for the requests being sent, so reset and close leave nothing running. */
	#onTheWire = new Set<AbortController>();
	#waiters: Array<() => void> = [];
	#timer: NodeJS.Timeout | undefined;

	constructor(settings: DeliverySettings, clock: Clock, store: () => Store) {
		this.#settings = settings;
		this.#clock = clock;
		this.#store = store;
		this.#random = seededRandom(settings.seed);
	}

	get mode(): DeliveryMode {
		return { ...this.#mode };
	}

	setMode(mode: Partial<DeliveryMode>): void {
		this.#mode = { ...this.#mode, ...mode };
		if (!this.#mode.shuffle) this.#releaseHeld();
		this.pump();
	}

	/** Records an event and queues it for every active subscription that lists its kind or `*`. */
	emit(
		type: EventKind,
		booking: BookingRecord,
		previous?: { startMs: number; endMs: number },
	): WebhookEvent {
		const store = this.#store();
		const event: WebhookEvent = {
			id: `evt_${store.ids.hex(24)}`,
			type,
			createdAt: isoTime(this.#clock.now()),
			apiVersion: 'v1',
			data: { booking: bookingResource(store, booking) },
		};
		if (previous !== undefined) {
			event.data[PREVIOUS_TIME_FIELD] = {
				start: isoTime(previous.startMs),
				end: isoTime(previous.endMs),
			};
		}
		this.events.push(event);
		const stored = { event, body: JSON.stringify(event) };
		for (const subscription of store.subscriptions.values()) {
			if (subscription.status !== 'active') continue;
			if (!subscription.events.includes(type) && !subscription.events.includes('*')) continue;
			for (let copy = 0; copy <= this.#mode.duplicates; copy += 1) {
				const job = {
					seq: this.#nextSeq(),
					stored,
					subscriptionId: subscription.id,
					url: subscription.url,
					attempt: 1,
					dueAtMs: this.#clock.now(),
				};
				(this.#mode.shuffle ? this.#held : this.#jobs).push(job);
			}
		}
		this.pump();
		return event;
	}

	/**
	 * Drops everything queued for a subscription that is gone or disabled, logging each as skipped.
	 */
	discardFor(subscriptionId: string, reason: string): void {
		const dropped = [...this.#jobs, ...this.#held].filter(
			(job) => job.subscriptionId === subscriptionId,
		);
		this.#jobs = this.#jobs.filter((job) => job.subscriptionId !== subscriptionId);
		this.#held = this.#held.filter((job) => job.subscriptionId !== subscriptionId);
		for (const job of dropped) this.#record(job, { outcome: 'skipped', error: reason });
	}

	/**
	 * Starts every attempt that is due, at most one per subscription at a time, and arms the timer
	 * for the next.
	 */
	pump(): void {
		const nowMs = this.#clock.now();
		const due = this.#jobs
			.filter((job) => job.dueAtMs <= nowMs)
			.sort((a, b) => a.dueAtMs - b.dueAtMs || a.seq - b.seq);
		for (const job of due) {
			if (this.#inFlight.has(job.subscriptionId)) continue;
			this.#jobs = this.#jobs.filter((queued) => queued !== job);
			this.#inFlight.add(job.subscriptionId);
			void this.#run(job);
		}
		this.#armTimer();
	}

	/**
	 * Resolves once nothing is in flight or due now (held deliveries are released first); returns the
	 * log.
	 */
	async drain(): Promise<DeliveryLogEntry[]> {
		this.#releaseHeld();
		await this.#settleDue();
		return [...this.log];
	}

	/**
	 * Moves the clock forward, stopping at each retry that falls due on the way and waiting for it,
	 * so a jump of days plays the whole back-off schedule with the timestamps it would really have.
	 */
	async advance(seconds: number): Promise<void> {
		const targetMs = this.#clock.now() + seconds * 1000;
		for (let round = 0; round < MAX_ROUNDS; round += 1) {
			await this.#settleDue();
			const next = Math.min(...this.#jobs.map((job) => job.dueAtMs));
			if (!(next <= targetMs)) break;
			this.#clock.moveTo(Math.max(this.#clock.now(), next));
		}
		this.#clock.moveTo(Math.max(this.#clock.now(), targetMs));
		await this.#settleDue();
	}

	/** Forgets queued work, logs and events; attempts on the wire are aborted and go unrecorded. */
	reset(): void {
		this.#generation += 1;
		for (const attempt of this.#onTheWire) attempt.abort();
		this.#jobs = [];
		this.#held = [];
		this.#inFlight.clear();
		this.log.length = 0;
		this.events.length = 0;
		this.#mode = { duplicates: 0, shuffle: false };
		this.#random = seededRandom(this.#settings.seed);
		this.#wake();
		this.#armTimer();
	}

	close(): void {
		this.reset();
		clearTimeout(this.#timer);
	}

	async #settleDue(): Promise<void> {
		for (let round = 0; round < MAX_ROUNDS; round += 1) {
			this.pump();
			const nowMs = this.#clock.now();
			if (this.#inFlight.size === 0 && !this.#jobs.some((job) => job.dueAtMs <= nowMs)) return;
			await new Promise<void>((resolve) => this.#waiters.push(resolve));
		}
		throw new Error('deliveries did not settle');
	}

	#releaseHeld(): void {
		if (this.#held.length === 0) return;
		const order = shuffled(this.#held, this.#random);
		this.#held = [];
		const nowMs = this.#clock.now();
		for (const job of order) this.#jobs.push({ ...job, seq: this.#nextSeq(), dueAtMs: nowMs });
	}

	async #run(job: Job): Promise<void> {
		const generation = this.#generation;
		const subscription = this.#store().subscriptions.get(job.subscriptionId);
		const result: AttemptResult =
			subscription === undefined || subscription.status !== 'active'
				? {
						outcome: 'skipped',
						error: subscription === undefined ? 'subscription deleted' : 'subscription disabled',
					}
				: await this.#send(job, subscription).catch((error: unknown) => ({
						outcome: 'failed' as const,
						error: describeError(error),
					}));
		if (generation !== this.#generation) return;
		this.#inFlight.delete(job.subscriptionId);
		this.#record(job, result);
		if (subscription !== undefined && result.outcome !== 'skipped')
			this.#apply(job, subscription, result);
		this.pump();
		this.#wake();
	}

	async #send(job: Job, subscription: SubscriptionRecord): Promise<AttemptResult> {
		let target: ApprovedTarget;
		try {
			// Re-checked before every delivery (contract, delivery rule 4).
			target = await approveTarget(subscription.url, this.#settings.allowInsecureTargets());
		} catch (error) {
			if (error instanceof TargetRefused)
				return { outcome: 'failed', error: `target refused: ${error.message}` };
			throw error;
		}
		const timestamp = Math.floor(this.#clock.now() / 1000);
		const signature = createHmac('sha256', subscription.secret)
			.update(`${timestamp}.${job.stored.body}`)
			.digest('hex');
		// One agent per attempt, whose only way to a host name is the approved addresses: the
		// connection is pinned.
		const agent = new Agent({ connect: { lookup: pinnedLookup(target.addresses) } });
		const abort = new AbortController();
		this.#onTheWire.add(abort);
		const timer = setTimeout(() => abort.abort(), this.#settings.timeoutMs);
		try {
			// undici's request never follows redirects, so a 3xx is simply a failed attempt (delivery
			// rule 2).
			const response = await request(target.url, {
				method: 'POST',
				dispatcher: agent,
				signal: abort.signal,
				headers: {
					'Content-Type': 'application/json',
					'User-Agent': 'Service-Webhooks/1',
					'Service-Event-Id': job.stored.event.id,
					'Service-Event-Type': job.stored.event.type,
					'Service-Signature': `t=${timestamp},v1=${signature}`,
				},
				body: job.stored.body,
			});
			await response.body.dump();
			const status = response.statusCode;
			return status >= 200 && status < 300
				? { outcome: 'delivered', status }
				: { outcome: 'failed', status };
		} catch (error) {
			const reason = abort.signal.aborted
				? `timeout after ${this.#settings.timeoutMs} ms`
				: describeError(error);
			return { outcome: 'failed', error: reason };
		} finally {
			clearTimeout(timer);
			this.#onTheWire.delete(abort);
			await agent.destroy();
		}
	}

	/**
	 * The subscription rules of the contract: success resets, 410 deletes, a long failure streak
	 * disables.
	 */
	#apply(job: Job, subscription: SubscriptionRecord, result: AttemptResult): void {
		const store = this.#store();
		const nowMs = this.#clock.now();
		if (result.outcome === 'delivered') {
			subscription.consecutiveFailures = 0;
			subscription.failureStreakStartedMs = null;
			subscription.lastSuccessAtMs = nowMs;
			return;
		}
		if (result.status === 410) {
			store.subscriptions.delete(subscription.id);
			this.discardFor(subscription.id, 'subscription deleted (410)');
			return;
		}
		subscription.consecutiveFailures += 1;
		subscription.failureStreakStartedMs ??= nowMs;
		const spanSeconds = (nowMs - subscription.failureStreakStartedMs) / 1000;
		if (
			subscription.consecutiveFailures >= DISABLE_AFTER_FAILURES &&
			spanSeconds >= DISABLE_AFTER_SPAN_SECONDS
		) {
			subscription.status = 'disabled';
			store.recordEmail({
				to: store.account.email,
				kind: 'webhook_disabled',
				subject: `Webhook to ${subscription.url} was disabled after repeated failures`,
				bookingId: null,
				at: isoTime(nowMs),
			});
			this.discardFor(subscription.id, 'subscription disabled');
			return;
		}
		const delay = this.#settings.retryDelaysSeconds[job.attempt - 1];
		if (delay !== undefined) {
			this.#jobs.push({
				...job,
				seq: this.#nextSeq(),
				attempt: job.attempt + 1,
				dueAtMs: nowMs + delay * 1000,
			});
		}
	}

	#record(job: Job, result: AttemptResult): void {
		this.log.push({
			eventId: job.stored.event.id,
			type: job.stored.event.type,
			subscriptionId: job.subscriptionId,
			url: job.url,
			attempt: job.attempt,
			...result,
			at: isoTime(this.#clock.now()),
		});
	}

	#nextSeq(): number {
		this.#seq += 1;
		return this.#seq;
	}

	#wake(): void {
		const waiters = this.#waiters;
		this.#waiters = [];
		for (const wake of waiters) wake();
	}

	/** A real timer for the next retry, so retries also happen when the clock simply runs. */
	#armTimer(): void {
		clearTimeout(this.#timer);
		if (this.#jobs.length === 0) return;
		const next = Math.min(...this.#jobs.map((job) => job.dueAtMs));
		const delayMs = Math.min(Math.max(next - this.#clock.now(), 0), 2 ** 31 - 1);
		this.#timer = setTimeout(() => this.pump(), delayMs);
		this.#timer.unref();
	}
}

/** A DNS lookup that can only answer with the approved addresses, whatever the host name. */
function pinnedLookup(addresses: ApprovedTarget['addresses']): LookupFunction {
	return (_hostname, options, callback) => {
		if (options.all) {
			callback(null, addresses);
		} else {
			callback(null, addresses[0].address, addresses[0].family);
		}
	};
}

/**
 * A seeded shuffle that never returns the input order when there are two or more items, so the
 * out-of-order switch always produces disorder a test can see.
 */
function shuffled<T>(items: T[], random: () => number): T[] {
	const result = [...items];
	for (let index = result.length - 1; index > 0; index -= 1) {
		const other = Math.floor(random() * (index + 1));
		[result[index], result[other]] = [result[other], result[index]];
	}
	if (result.length > 1 && result.every((item, index) => item === items[index])) result.reverse();
	return result;
}

function describeError(error: unknown): string {
	if (error instanceof Error) {
		const code = (error as Error & { code?: unknown }).code;
		return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
	}
	return String(error);
}
