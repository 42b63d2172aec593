// The real system of the webhook trigger's model: the simulator's accounts (one per test file each, reset per
// history), the n8n processes running the trigger (the engine harness; each process a fresh copy of the node's
// modules, so its own memory, all sharing the workflow's static data as n8n's database and one URL as queue mode's
// load balancer), a clock n8n and the service share (a fake Date), and what the test itself sent or did, which the
// reference (reference.ts) judges the logs against.
import { vi } from 'vitest';
import type { StaticDataStore, TriggerHarness, TriggerHarnessOptions } from '../../harness/trigger.ts';
import type { Simulator } from '../../simulator/index.ts';
import { sendFlood } from './floods.ts';
import { FrontDoor } from './front.ts';
import { strays, switchAwayAfter } from './reference.ts';
import { Accounts } from './accounts.ts';
import { failCredentialReadsIn } from './credential-faults.ts';

/** How long the service waits for n8n's answer to a delivery in the model (the contract's is 10 s). */
export const DELIVERY_TIMEOUT_MS = 400;

type HarnessModule = typeof import('../../harness/trigger.ts');
type EngineModule = typeof import('../../harness/engine.ts');

/** One n8n process: the trigger harness of one copy of the node's modules. */
export interface Process {
	readonly index: number;
	/** main activates and deactivates, and serves test listens; a webhook process only serves production requests. */
	readonly role: 'main' | 'webhook';
	readonly harness: TriggerHarness;
	/** The process's own address behind the front door. */
	readonly address: string;
	/** Indexes into harness.executions of runs started by a request the test sent itself, with its kind. */
	readonly forgedRuns: Map<number, string>;
	/** Starts another trigger in this process (its memory): the flooded workflows of floods.ts. */
	readonly startTrigger: (options: TriggerHarnessOptions) => Promise<TriggerHarness>;
	/** Other active triggers in this process, each a workflow of its own in the decoy account. */
	readonly others: TriggerHarness[];
}

export class WebhookWorld extends Accounts {
	/** The account of the other workflows a flood also targets (floods.ts). */
	readonly decoyAccount: Simulator;
	readonly workflowId = `wf-model-${Math.random().toString(16).slice(2)}`;
	readonly instanceId = 'model-instance';
	/** Every process that ran, in order; `live` those running now, main first. */
	readonly processes: Process[] = [];
	live: Process[] = [];
	/** Whether n8n has the workflow active (a failed activation leaves it inactive). */
	active = false;
	/** Credential reads that fail from now on (n8n could not decrypt the credential, the database was unreachable). */
	credentialFailures = 0;
	/** Deliveries whose answer the service will not get (n8n answers after the service gave up waiting). */
	answersToLose = 0;
	/** Forged requests sent before each delivery, to the workflow alone or to other workflows too, while set. */
	flood: { count: number; several: boolean } | undefined;
	/** Set: the next production request races a re-activation by main; called with who served it and how it went. */
	race: ((role: Process['role'], outcome: 'ok' | 'failed') => void) | undefined;
	/** When each restart of main happened (n8n's clock). */
	readonly restartsAtMs: number[] = [];
	/** Broken promises seen as they happened (the rest are judged from the logs at the end). */
	readonly violations: string[] = [];
	/** Every body the test sent itself. */
	readonly sentBodies = new Set<string>();
	readonly front = new FrontDoor(() => this.live.map((process) => process.address));
	readonly #store: StaticDataStore = { text: '{}' };
	/** The race's re-activation (a background delivery can start it mid-step): main ends it before the next (un)publish. */
	#racing: Promise<'ok' | 'failed'> | undefined;
	/** Main's activations, chained (see #activateNow). */
	#activations: Promise<unknown> = Promise.resolve();
	#eventsSeen: number[] = [];
	#nowMs: number;

	constructor(accounts: Simulator[], decoyAccount: Simulator, startMs: number) {
		super(accounts);
		this.decoyAccount = decoyAccount;
		this.#nowMs = startMs;
		vi.setSystemTime(startMs);
	}

	get process(): Process {
		return this.live[0];
	}
	get harness(): TriggerHarness {
		return this.process.harness;
	}

	/** Moves n8n's clock and the service's together (the simulator's clock is the Date this test fakes). */
	advance(ms: number): void {
		this.#nowMs += ms;
		vi.setSystemTime(this.#nowMs);
	}

	/** Starts main, or restarts it: the old one is gone with its memory, the new one serves the same URL. */
	async startProcess(): Promise<void> {
		if (this.front.origin === '') await this.front.start();
		const main = this.live[0];
		if (main !== undefined) {
			await this.#stop(main);
			this.restartsAtMs.push(Date.now());
		}
		this.live.unshift(await this.#start('main'));
		this.active = false;
		this.#serve();
	}

	/** Starts a second process (queue mode's webhook process), or restarts it; it serves what main activated. */
	async startWebhookProcess(): Promise<void> {
		const second = this.live[1];
		if (second !== undefined) await this.#stop(second);
		this.live.push(await this.#start('webhook'));
		this.#serve();
	}

	async close(): Promise<void> {
		for (const process of this.live) await this.#stop(process);
		await this.front.close();
	}

	/** n8n activates the workflow; a failure is n8n's (it cleans up and shows the error), not the test's. */
	async activate(mode: 'activate' | 'init' | 'update'): Promise<'ok' | 'failed'> {
		await this.#racing;
		return await this.#activateNow(mode);
	}

	/** Main's activations run one after another: a race a background delivery starts during the user's one waits too. */
	async #activateNow(mode: 'activate' | 'init' | 'update'): Promise<'ok' | 'failed'> {
		const turn = this.#activations.then(async () => await this.#activateOnce(mode));
		this.#activations = turn;
		return await turn;
	}

	async #activateOnce(mode: 'activate' | 'init' | 'update'): Promise<'ok' | 'failed'> {
		const activation = { startMs: Date.now(), endMs: Infinity };
		this.activations.push(activation);
		try {
			await this.harness.activate(mode);
			this.active = true;
			return 'ok';
		} catch {
			this.active = false;
			return 'failed';
		} finally {
			activation.endMs = Date.now();
			this.#serve();
		}
	}

	/** The user unpublishes: what the delete removed is the user's choice, pending deliveries included. */
	async unpublish(): Promise<void> {
		await this.#racing;
		this.markUnpublished();
		const productionUrl = this.harness.productionUrl;
		for (const account of this.accounts) {
			for (const subscription of account.control.webhooks()) {
				if (subscription.url === productionUrl) this.unpublished.add(subscription.id);
			}
		}
		// Judged only for an active workflow: after a failed activation the node cannot tell an unpublish from n8n's
		// clean-up, and keeps what may have events to deliver until the next publish or unpublish (docs).
		const nothingFails = this.active && this.sim.control.faults().length === 0 && this.credentialFailures === 0;
		await this.harness.deactivate();
		this.active = false;
		this.#serve();
		// With nothing failing, unpublishing deletes the production subscription (the docs: "Unpublishing deletes").
		// Not judged: a stray (POST answer lost), or one left in this account when the user switched away from it (docs).
		const stray = strays(this);
		const kept = this.sim.control
			.webhooks()
			.filter((subscription) => subscription.url === productionUrl && !stray.has(subscription.id))
			.filter((subscription) => switchAwayAfter(this, this.account, Date.parse(subscription.createdAt)) === undefined);
		if (nothingFails && kept.length > 0) this.violations.push(`unpublished with nothing failing, ${productionUrl} kept`);
	}

	/** The service delivers what is due (n8n finishes what it does after answering); a flood goes on meanwhile. */
	async deliver(): Promise<void> {
		// A flood matters only when the service has something to deliver; bursts at other times would only cost time.
		if (this.flood !== undefined && this.#somethingToDeliver()) await sendFlood(this, this.flood);
		for (const account of this.accounts) await account.control.drainDeliveries();
		this.#eventsSeen = this.accounts.map((account) => account.control.events().length);
		for (const process of this.live) await process.harness.whenIdle();
	}

	/** New events since the last delivery, or an attempt that failed and was not followed by one that got through. */
	#somethingToDeliver(): boolean {
		return this.accounts.some((account, index) => {
			if (account.control.events().length > (this.#eventsSeen[index] ?? 0)) return true;
			const last = new Map(account.control.deliveries().map((entry) => [`${entry.eventId} ${entry.subscriptionId}`, entry.outcome]));
			return [...last.values()].includes('failed');
		});
	}

	/** The service's own deliveries any process received (at either URL), as received: what an attacker can capture. */
	captured(): Array<{ body: string; headers: Record<string, string> }> {
		return this.processes
			.flatMap((process) => process.harness.received)
			.map((request) => ({ body: request.rawBody.toString('utf8'), headers: request.headers as Record<string, string> }))
			.filter((request) => !this.sentBodies.has(request.body));
	}

	/** A request the test sends itself to the Production URL; a run it starts, in whichever process, is recorded as forged. */
	async forge(kind: string, body: string, headers: Record<string, string>, url = this.harness.productionUrl): Promise<number> {
		this.sentBodies.add(body);
		const before = this.live.map((process) => process.harness.executions.length);
		const { status } = await this.harness.post(body, headers, url);
		this.live.forEach((process, at) => {
			for (let index = before[at]; index < process.harness.executions.length; index++) process.forgedRuns.set(index, kind);
		});
		return status;
	}

	async #start(role: Process['role']): Promise<Process> {
		vi.resetModules();
		const harnessModule = (await import('../../harness/trigger.ts')) as HarnessModule;
		failCredentialReadsIn((await import('../../harness/engine.ts')) as EngineModule, this);
		const harness = await harnessModule.startTriggerHarness({
			baseUrl: this.sim.baseUrl,
			apiKey: this.key,
			parameters: { events: ['*'], options: {} },
			workflowId: this.workflowId,
			instanceId: this.instanceId,
			store: this.#store,
		});
		const address = harness.origin;
		harness.origin = this.front.origin; // n8n's WEBHOOK_URL: the address in front of every process
		harness.beforeWebhook = async () => {
			const race = this.race;
			this.race = undefined;
			// Main re-activates after this process loaded static data for a request and before the node saw it.
			if (race !== undefined && this.published) {
				this.#racing = this.#activateNow('update');
				race(role, await this.#racing);
			}
			if (this.answersToLose === 0) return;
			this.answersToLose -= 1;
			await new Promise((resolve) => setTimeout(resolve, DELIVERY_TIMEOUT_MS + 100));
		};
		const startTrigger = harnessModule.startTriggerHarness;
		const process: Process = { index: this.processes.length, role, harness, address, forgedRuns: new Map(), startTrigger, others: [] };
		this.processes.push(process);
		return process;
	}

	async #stop(process: Process): Promise<void> {
		this.live = this.live.filter((live) => live !== process);
		await process.harness.close();
		for (const other of process.others) await other.close();
	}

	/** Webhook processes serve the workflow's Production URL while main has it active (n8n's webhook table). */
	#serve(): void {
		for (const process of this.live.slice(1)) process.harness.serveProduction(this.active);
	}

	protected setCredential(): void {
		for (const process of this.live) process.harness.setCredential({ apiKey: this.key, baseUrl: this.sim.baseUrl });
	}
}
