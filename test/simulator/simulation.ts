/**
 * The running simulator's state as one object: options, clock, data, traffic rules and deliveries.
 * Routes and the control interface both work on it; `reset` puts everything back to the seeded
 * state.
 */
import { Clock } from './clock.ts';
import { Deliveries } from './deliveries.ts';
import type { KeyChoice } from './model.ts';
import { DEFAULT_RETRY_DELAYS_SECONDS, DEFAULT_SEED, DELIVERY_TIMEOUT_MS } from './policy.ts';
import { seed } from './seed.ts';
import type { Store } from './store.ts';
import { Traffic } from './traffic.ts';
import type { RateLimit } from './traffic.ts';

export interface SimulatorOptions {
	/** Port on 127.0.0.1; 0 (default) picks a free one. */
	port?: number;
	/**
	 * Accept http:// and loopback/private webhook targets (local use). Default false: https and
	 * public only.
	 */
	allowInsecureWebhookTargets?: boolean;
	/** Seed for ids, keys, secrets and generated data. Default 1. */
	seed?: number;
	/** Initial simulated time (ISO 8601). Default: the real time. */
	now?: string;
	/** Extra confirmed bookings made at start, silently (no events, no emails). Default 0. */
	generatedBookings?: number;
	/** Request budget per API key; false turns the limit off. Default 600 per 60 s. */
	rateLimit?: RateLimit | false;
	/** Back-off between delivery attempts, in simulated seconds. Default: see policy.ts. */
	deliveryRetryDelaysSeconds?: number[];
	/**
	 * Per-attempt delivery timeout in real milliseconds. Default 10 000 (the contract's 10 s); tests
	 * may shorten it.
	 */
	deliveryTimeoutMs?: number;
}

export class Simulation {
	readonly options: SimulatorOptions;
	readonly clock: Clock;
	readonly deliveries: Deliveries;
	store!: Store;
	apiKeys!: Record<KeyChoice, string>;
	traffic!: Traffic;
	/** Set once the server listens: `http://127.0.0.1:<port>`. */
	origin = '';
	/**
	 * The local-use switch for webhook targets; starts from the option, and the control interface can
	 * flip it.
	 */
	allowInsecureWebhookTargets: boolean;

	constructor(options: SimulatorOptions) {
		this.options = options;
		this.clock = new Clock();
		this.allowInsecureWebhookTargets = options.allowInsecureWebhookTargets ?? false;
		const seedValue = options.seed ?? DEFAULT_SEED;
		this.deliveries = new Deliveries(
			{
				allowInsecureTargets: () => this.allowInsecureWebhookTargets,
				retryDelaysSeconds: options.deliveryRetryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS,
				timeoutMs: options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS,
				seed: seedValue,
			},
			this.clock,
			() => this.store,
		);
		this.#seed();
	}

	/**
	 * Back to the seeded state: keys, data, subscriptions, logs, faults, rate limit, delivery mode,
	 * switches and clock.
	 */
	reset(): void {
		this.allowInsecureWebhookTargets = this.options.allowInsecureWebhookTargets ?? false;
		this.deliveries.reset();
		this.#seed();
	}

	/**
	 * Sets the clock to its start and seeds at exactly that instant, so a given `now` and seed give
	 * identical data.
	 */
	#seed(): void {
		const startMs = this.options.now === undefined ? Date.now() : Date.parse(this.options.now);
		if (Number.isNaN(startMs)) throw new RangeError(`now is not a timestamp: ${this.options.now}`);
		this.clock.moveTo(startMs);
		const seeded = seed({
			seed: this.options.seed ?? DEFAULT_SEED,
			nowMs: startMs,
			generatedBookings: this.options.generatedBookings ?? 0,
		});
		this.store = seeded.store;
		this.apiKeys = seeded.apiKeys;
		this.traffic = new Traffic(this.options.rateLimit);
	}
}
