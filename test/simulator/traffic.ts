/**
 * What happens to requests before and around the operations: the request log, the rate limit and
 * injected faults.
 */
import { DEFAULT_RATE_LIMIT } from './policy.ts';

export interface RequestLogEntry {
	seq: number;
	method: string;
	/** As received, without the query string, e.g. `/v1/bookings/0123…/cancel`. */
	path: string;
	/**
	 * The matched route pattern as the contract writes it (`/bookings/{id}/cancel`), or null for an
	 * unknown path.
	 */
	route: string | null;
	query: Record<string, string | string[]>;
	/** The status sent, or null when the connection was dropped. */
	status: number | null;
	idempotencyKey: string | null;
	at: string;
}

export type FaultKind = 'status' | 'rate_limit' | 'latency' | 'drop';

export interface FaultSpec {
	/** HTTP method, or `*` for any. */
	method: string;
	/**
	 * Route pattern as in the contract (`/bookings/{id}/cancel`, with or without `/v1`), or `*` for
	 * any route.
	 */
	path: string;
	/** How many matching requests the fault applies to. */
	count: number;
	kind: FaultKind;
	/** `status` kind: the status to answer (default 500). */
	status?: number;
	/** `status` kind: the error code in the envelope (default internal_error). */
	code?: string;
	message?: string;
	/** `rate_limit` kind: the Retry-After value (default 1). */
	retryAfterSeconds?: number;
	/** `latency` kind: real milliseconds to wait. */
	latencyMs?: number;
	/**
	 * `before` (default): the fault replaces the request, which is not processed. `after`: the
	 * request is processed in full (a booking is created, an event emitted) and only its response is
	 * replaced — a lost response.
	 */
	phase?: 'before' | 'after';
	/**
	 * Only requests whose query holds each of these parameters with this value (`*`: any value), e.g.
	 * `{ cursor: '*' }` for the pages after a list's first.
	 */
	query?: Record<string, string>;
	/** Let this many matching requests through before the fault applies (e.g. 2: a fault on the third). */
	skip?: number;
}

export interface RateLimit {
	requests: number;
	perSeconds: number;
}

interface ActiveFault extends FaultSpec {
	remaining: number;
	toSkip: number;
}

export class Traffic {
	readonly requests: RequestLogEntry[] = [];
	#faults: ActiveFault[] = [];
	#rateLimit: RateLimit | false;
	#windows = new Map<string, { startedMs: number; used: number }>();
	#seq = 0;

	constructor(rateLimit: RateLimit | false | undefined) {
		this.#rateLimit = rateLimit === undefined ? DEFAULT_RATE_LIMIT : rateLimit;
	}

	record(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
		this.#seq += 1;
		const logged = { seq: this.#seq, ...entry };
		this.requests.push(logged);
		return logged;
	}

	clearRequests(): void {
		this.requests.length = 0;
	}

	addFault(spec: FaultSpec): void {
		this.#faults.push({ ...spec, path: normaliseRoute(spec.path), remaining: spec.count, toSkip: spec.skip ?? 0 });
	}

	clearFaults(): void {
		this.#faults = [];
	}

	get faults(): FaultSpec[] {
		return this.#faults.map(({ remaining, toSkip, ...spec }) => ({ ...spec, count: remaining, skip: toSkip }));
	}

	/** The first pending fault for this request and phase, counted as used. */
	takeFault(
		method: string,
		route: string,
		phase: 'before' | 'after',
		query: Record<string, string | string[]> = {},
	): FaultSpec | undefined {
		const fault = this.#faults.find(
			(candidate) =>
				candidate.remaining > 0 &&
				(candidate.phase ?? 'before') === phase &&
				(candidate.method === '*' || candidate.method.toUpperCase() === method) &&
				(candidate.path === '*' || candidate.path === route) &&
				Object.entries(candidate.query ?? {}).every(
					([name, value]) => query[name] !== undefined && (value === '*' || String(query[name]) === value),
				),
		);
		if (fault === undefined) return undefined;
		if (fault.toSkip > 0) {
			fault.toSkip -= 1;
			return undefined;
		}
		fault.remaining -= 1;
		this.#faults = this.#faults.filter((candidate) => candidate.remaining > 0);
		return fault;
	}

	setRateLimit(limit: RateLimit | false): void {
		this.#rateLimit = limit;
		this.#windows.clear();
	}

	/**
	 * Counts one request against the key's budget. Fixed windows on the simulated clock, so moving
	 * the clock forward refills the budget. Returns the Retry-After seconds when the budget is spent.
	 */
	spend(keyId: string, nowMs: number): { retryAfterSeconds: number } | undefined {
		if (this.#rateLimit === false) return undefined;
		const windowMs = this.#rateLimit.perSeconds * 1000;
		let window = this.#windows.get(keyId);
		if (window === undefined || nowMs >= window.startedMs + windowMs || nowMs < window.startedMs) {
			window = { startedMs: nowMs, used: 0 };
			this.#windows.set(keyId, window);
		}
		if (window.used >= this.#rateLimit.requests) {
			return {
				retryAfterSeconds: Math.max(1, Math.ceil((window.startedMs + windowMs - nowMs) / 1000)),
			};
		}
		window.used += 1;
		return undefined;
	}
}

function normaliseRoute(path: string): string {
	return path.startsWith('/v1/') ? path.slice(3) : path;
}
