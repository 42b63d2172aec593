// The real system of the webhook trigger's model: the simulator (one per test file, reset per history), the n8n
// process running the trigger (the engine harness; a restart is a fresh copy of the node's modules on the same
// port, with the workflow's saved static data), a clock n8n and the service share (a fake Date), and what the test
// itself sent or did, which the reference (reference.ts) judges the logs against.
import { vi } from 'vitest';
import type { TriggerHarness } from '../../harness/trigger.ts';
import type { Simulator } from '../../simulator/index.ts';
import { api } from '../../trigger/support.ts';
import { strays } from './reference.ts';

/** How long the service waits for n8n's answer to a delivery in the model (the contract's is 10 s). */
export const DELIVERY_TIMEOUT_MS = 400;

type HarnessModule = typeof import('../../harness/trigger.ts');
type EngineModule = typeof import('../../harness/engine.ts');

/** One n8n process: the trigger harness of one copy of the node's modules. */
export interface Process {
	readonly index: number;
	readonly harness: TriggerHarness;
	/** Indexes into harness.executions of runs started by a request the test sent itself, with its kind. */
	readonly forgedRuns: Map<number, string>;
}

/** What the test did that the logs cannot say: which subscriptions the user deleted by unpublishing. */
export class WebhookWorld {
	readonly sim: Simulator;
	readonly workflowId = `wf-model-${Math.random().toString(16).slice(2)}`;
	readonly instanceId = 'model-instance';
	processes: Process[] = [];
	key: string;
	/** Bookings made through the API or seeded, oldest first: what forgeries name. */
	readonly bookings: string[] = [];
	/**
	 * Production subscriptions that existed when the user unpublished: their pending deliveries may be dropped, at once
	 * or, when the delete failed, at the next publish (the docs: deliveries meanwhile are refused).
	 */
	readonly unpublished = new Set<string>();
	/** Whether the user wants the workflow published (n8n re-publishes it after a restart). */
	get published(): boolean {
		return this.#unpublishedSinceMs === undefined;
	}

	/** When the user unpublished and published again, n8n's clock. */
	readonly unpublishedSpans: Array<[number, number]> = [];
	#unpublishedSinceMs: number | undefined = 0;

	/** The user publishes (or means to: n8n re-activates a published workflow after a restart). */
	markPublished(): void {
		if (this.#unpublishedSinceMs !== undefined) this.unpublishedSpans.push([this.#unpublishedSinceMs, Date.now()]);
		this.#unpublishedSinceMs = undefined;
	}

	/** Whether the user had the workflow unpublished at `ms`. */
	unpublishedAt(ms: number): boolean {
		return this.#unpublishedSinceMs !== undefined && ms >= this.#unpublishedSinceMs
			? true
			: this.unpublishedSpans.some(([from, to]) => ms >= from && ms <= to);
	}
	/** Whether n8n has the workflow active in the current process (an activation that failed leaves it inactive). */
	active = false;
	/** Credential reads that fail from now on (n8n could not decrypt the credential, the database was unreachable). */
	credentialFailures = 0;
	/** Deliveries whose answer the service will not get (n8n answers after the service gave up waiting). */
	answersToLose = 0;
	/** When each restart happened (n8n's clock). */
	readonly restartsAtMs: number[] = [];
	/** Broken promises seen as they happened (the rest are judged from the logs at the end). */
	readonly violations: string[] = [];
	/** Every body the test sent itself. */
	readonly sentBodies = new Set<string>();
	#port = 0;
	#nowMs: number;

	constructor(sim: Simulator, startMs: number) {
		this.sim = sim;
		this.key = sim.apiKeys.readWrite;
		this.#nowMs = startMs;
		vi.setSystemTime(startMs);
	}

	get process(): Process {
		return this.processes.at(-1)!;
	}

	get harness(): TriggerHarness {
		return this.process.harness;
	}

	/** Moves n8n's clock and the service's together (the simulator's clock is the Date this test fakes). */
	advance(ms: number): void {
		this.#nowMs += ms;
		vi.setSystemTime(this.#nowMs);
	}

	/** Starts the first process, or restarts: the old one is gone with its memory, the new one serves the same port. */
	async startProcess(): Promise<void> {
		const saved = this.processes.at(-1)?.harness.savedStaticData;
		if (this.processes.length > 0) {
			await this.harness.close();
			vi.resetModules();
			this.restartsAtMs.push(Date.now());
		}
		const harnessModule = (await import('../../harness/trigger.ts')) as HarnessModule;
		this.#failCredentialReadsIn((await import('../../harness/engine.ts')) as EngineModule);
		const harness = await harnessModule.startTriggerHarness({
			baseUrl: this.sim.baseUrl,
			apiKey: this.key,
			parameters: { events: ['*'], options: {} },
			workflowId: this.workflowId,
			instanceId: this.instanceId,
			port: this.#port,
			...(saved === undefined ? {} : { copyOf: { savedStaticData: saved } }),
		});
		this.#port = Number(new URL(harness.origin).port);
		harness.beforeWebhook = async () => {
			if (this.answersToLose === 0) return;
			this.answersToLose -= 1;
			await new Promise((resolve) => setTimeout(resolve, DELIVERY_TIMEOUT_MS + 100));
		};
		this.active = false;
		this.processes.push({ index: this.processes.length, harness, forgedRuns: new Map() });
	}

	async close(): Promise<void> {
		await this.processes.at(-1)?.harness.close();
	}

	/** n8n activates the workflow; a failure is n8n's (it cleans up and shows the error), not the test's. */
	async activate(mode: 'activate' | 'init' | 'update'): Promise<'ok' | 'failed'> {
		try {
			await this.harness.activate(mode);
			this.active = true;
			return 'ok';
		} catch {
			this.active = false;
			return 'failed';
		}
	}

	/** The user unpublishes: what the delete removed is the user's choice, pending deliveries included. */
	async unpublish(): Promise<void> {
		this.#unpublishedSinceMs ??= Date.now();
		const productionUrl = this.harness.productionUrl;
		for (const subscription of this.sim.control.webhooks()) {
			if (subscription.url === productionUrl) this.unpublished.add(subscription.id);
		}
		// Judged only for an active workflow: after a failed activation the node cannot tell an unpublish from n8n's
		// clean-up, and keeps what may have events to deliver until the next publish or unpublish (docs).
		const nothingFails = this.active && this.sim.control.faults().length === 0 && this.credentialFailures === 0;
		await this.harness.deactivate();
		this.active = false;
		// With nothing failing, unpublishing deletes the production subscription (the docs: "Unpublishing deletes").
		const stray = strays(this);
		const kept = this.sim.control.webhooks().filter((subscription) => subscription.url === productionUrl && !stray.has(subscription.id));
		if (nothingFails && kept.length > 0) this.violations.push(`unpublished with nothing failing, ${productionUrl} kept`);
	}

	/** The user rotates the API key: a new one into the credential, the old one revoked. */
	rotateKey(): void {
		const { key } = this.sim.control.createKey('readWrite');
		for (const process of this.processes) process.harness.setCredential({ apiKey: key, baseUrl: this.sim.baseUrl });
		this.sim.control.revokeKey(this.key);
		this.key = key;
	}

	/** The service delivers what is due (n8n finishes what it does after answering). */
	async deliver(): Promise<void> {
		await this.sim.control.drainDeliveries();
		for (const process of this.processes) await process.harness.whenIdle();
	}

	async freeStarts(): Promise<string[]> {
		const eventTypeId = this.sim.control.eventType('intro-call').id;
		const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
		const to = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
		const { slots } = await api<{ slots: string[] }>(this.sim, 'GET', `/event-types/${eventTypeId}/slots?from=${from}&to=${to}`, undefined, this.key);
		return slots.reverse();
	}

	/** Books the latest free intro call (it stays live for days); emits booking.created. */
	async book(): Promise<string> {
		const eventTypeId = this.sim.control.eventType('intro-call').id;
		const booked = new Set(this.sim.control.bookings().map((booking) => booking.start));
		const start = (await this.freeStarts()).find((candidate) => !booked.has(candidate));
		const booking = await api<{ id: string }>(
			this.sim,
			'POST',
			'/bookings',
			{ eventTypeId, start, booker: { name: 'Guest', email: `guest${this.bookings.length}@example.com`, timezone: 'Europe/Berlin' } },
			this.key,
		);
		this.bookings.push(booking.id);
		return booking.id;
	}

	/** The service's own deliveries any process received (at either URL), as received: what an attacker can capture. */
	captured(): Array<{ body: string; headers: Record<string, string> }> {
		return this.processes
			.flatMap((process) => process.harness.received)
			.map((request) => ({ body: request.rawBody.toString('utf8'), headers: request.headers as Record<string, string> }))
			.filter((request) => !this.sentBodies.has(request.body));
	}

	/** A request the test sends itself to the Production URL; a run it starts is recorded as forged. */
	async forge(kind: string, body: string, headers: Record<string, string>): Promise<number> {
		this.sentBodies.add(body);
		const process = this.process;
		const before = process.harness.executions.length;
		let status: number;
		try {
			({ status } = await process.harness.post(body, headers));
		} catch {
			// fetch reused a kept-alive connection to the process before a restart; a sender simply sends again
			({ status } = await process.harness.post(body, headers));
		}
		for (let index = before; index < process.harness.executions.length; index++) process.forgedRuns.set(index, kind);
		return status;
	}

	#failCredentialReadsIn(engine: EngineModule): void {
		current = this;
		const prototype = engine.TestCredentialsHelper.prototype as { getDecrypted: (...args: never[]) => Promise<unknown> };
		if (patched.has(prototype)) return;
		patched.add(prototype);
		const read = prototype.getDecrypted;
		prototype.getDecrypted = async function (this: unknown, ...args: never[]) {
			if (current !== undefined && current.credentialFailures > 0) {
				current.credentialFailures -= 1;
				throw new Error('Could not decrypt the credential (model fault)');
			}
			return await read.apply(this, args);
		};
	}
}

// Each copy of the engine module has its own credentials helper class; each is patched once and reads the counter
// of the history running now.
let current: WebhookWorld | undefined;
const patched = new WeakSet<object>();
