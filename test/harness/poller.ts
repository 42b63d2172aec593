/**
 * Runs the Booking Service Polling Trigger the way n8n 2.41 runs a polling node, without n8n's server: `poll()`
 * through n8n-core's own PollContext, on either of n8n's two poll schedulers (read from n8n 2.41.1's dist):
 *
 * - `memory` (n8n's default): one Workflow object for the life of an activation. The first poll is the one n8n runs
 *   at activation; n8n saves static data right after it (the activator's saveStaticData) and after every poll that
 *   emits. `restart()` builds a new Workflow from what was saved and the next poll is the activation poll again
 *   (activation mode 'init').
 * - `durable` (N8N_SCHEDULER_ENABLED, N8N_USE_WORKFLOW_PUBLICATION_SERVICE, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED,
 *   N8N_POLLER_DURABLE_CURSORS_ENABLED): the node's static data is a cursor row of its own, created from the
 *   workflow's node static data the first time a poll runs. The first poll is the activation poll: its cursor is
 *   committed only if it emits (n8n runs it as a test poll), while the workflow's own static data (global) is saved
 *   after it either way. Every later poll is a scheduled task on a fresh Workflow built from the saved workflow, in
 *   activation mode 'update', whose cursor is committed with its execution, or alone when it emits nothing; a poll
 *   that throws commits nothing. `restart()` changes nothing: the task's next occurrence simply runs.
 */
import './n8n-environment.ts';

import { randomUUID } from 'node:crypto';

import type { IDataObject, INode, INodeExecutionData, WorkflowActivateMode, WorkflowExecuteMode } from 'n8n-workflow';
import { PollContext } from 'n8n-core';
import { Workflow } from 'n8n-workflow';

import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { createAdditionalData, createNodeTypes, TestCredentialsHelper } from './engine.ts';

export const POLLING_TRIGGER_NODE_TYPE = 'n8n-nodes-booking-service.bookingServicePollingTrigger';

export type PollScheduler = 'memory' | 'durable';

/** The scheduler the engine suites run on unless a test picks one: BOOKING_POLL_SCHEDULER=durable runs them on n8n's durable one. */
export const DEFAULT_SCHEDULER: PollScheduler = process.env.BOOKING_POLL_SCHEDULER === 'durable' ? 'durable' : 'memory';

/** n8n 2.41's poll budget on the durable scheduler with its defaults (N8N_SCHEDULER_POLL_TIMEOUT 45 s, less a margin). */
export const DURABLE_POLL_BUDGET_MS = 36_000;

export interface PollHarnessOptions {
	baseUrl: string;
	apiKey: string;
	parameters: IDataObject;
	timezone?: string;
	/** Saved static data of another workflow (a copy), or of this one (with `workflowId`: activated again). */
	savedStaticData?: string;
	workflowId?: string;
	scheduler?: PollScheduler;
	/** What the node's getPollBudgetMs() answers; default n8n's for the scheduler (durable 36 s, memory 5 min). */
	pollBudgetMs?: number;
}

export class PollHarness {
	readonly nodeType = new BookingServicePollingTrigger();
	readonly workflowId: string;
	readonly scheduler: PollScheduler;
	/** Every item emitted by production polls, in order. */
	readonly emitted: INodeExecutionData[] = [];
	/** The workflow row's static data as n8n last saved it (JSON). */
	#saved: string;
	/** Durable scheduler: the cursor row (JSON); undefined until a poll created it. */
	#cursor: string | undefined;
	/** Memory scheduler: the Workflow object of the current activation. */
	#workflow: Workflow;
	/** The next poll is the one n8n runs at activation (memory: also after a restart). */
	#activation: WorkflowActivateMode | undefined = 'activate';
	readonly #options: PollHarnessOptions;
	readonly #node: INode;

	constructor(options: PollHarnessOptions) {
		this.#options = options;
		this.scheduler = options.scheduler ?? DEFAULT_SCHEDULER;
		this.workflowId = options.workflowId ?? `wf-${randomUUID()}`;
		this.#saved = options.savedStaticData ?? '{}';
		this.#node = {
			id: '3e9c7f1a-2b4d-4c6e-8f0a-1b2c3d4e5f60',
			name: 'Booking Service Polling Trigger',
			type: POLLING_TRIGGER_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: options.parameters as INode['parameters'],
			credentials: { bookingServiceApi: { id: 'cred-1', name: 'Booking Service account' } },
		};
		this.#workflow = this.#load();
	}

	/** Static data as last saved (what survives a restart); on the durable scheduler, the node's cursor row in it. */
	get savedStaticData(): string {
		if (this.scheduler === 'memory' || this.#cursor === undefined) return this.#saved;
		const saved = JSON.parse(this.#saved) as IDataObject;
		return JSON.stringify({ ...saved, [`node:${this.#node.name}`]: JSON.parse(this.#cursor) as IDataObject });
	}

	/** The node's stored state as n8n keeps it: the cursor row (durable) or the node's static data (memory), in bytes of JSON. */
	get storedStateBytes(): number {
		if (this.scheduler === 'durable') return (this.#cursor ?? '{}').length;
		return JSON.stringify((JSON.parse(this.#saved) as IDataObject)[`node:${this.#node.name}`] ?? {}).length;
	}

	/** n8n restarts: what was in memory is gone. */
	restart(): void {
		if (this.scheduler === 'durable') return;
		this.#workflow = this.#load();
		this.#activation = 'init';
	}

	/** One poll as n8n runs it (mode 'trigger'); returns the items it emitted, [] for none. */
	async poll(): Promise<INodeExecutionData[]> {
		const items = this.scheduler === 'durable' ? await this.#durablePoll() : await this.#memoryPoll();
		this.emitted.push(...items);
		return items;
	}

	/** "Fetch Test Event": a manual run on its own copy of static data, which is never saved. */
	async fetchTestEvent(): Promise<INodeExecutionData[]> {
		return await this.#run('manual', 'manual', this.#load());
	}

	async #memoryPoll(): Promise<INodeExecutionData[]> {
		const activation = this.#activation;
		this.#activation = undefined;
		const items = await this.#run('trigger', activation ?? 'activate', this.#workflow);
		if (activation !== undefined || items.length > 0) this.#saved = JSON.stringify(this.#workflow.staticData);
		return items;
	}

	async #durablePoll(): Promise<INodeExecutionData[]> {
		const workflow = this.#load();
		// getOrCreateCursor: the row starts as the workflow's node static data, the first time a poll runs.
		this.#cursor ??= JSON.stringify(workflow.getStaticData('node', this.#node));
		const staged = JSON.parse(this.#cursor) as IDataObject;
		const activation = this.#activation;
		this.#activation = undefined;
		// A poll that throws commits nothing (and n8n backs off).
		const items = await this.#run('trigger', activation ?? 'update', workflow, staged);
		const commit = items.length > 0 || activation === undefined;
		if (commit && JSON.stringify(staged) !== this.#cursor) this.#cursor = JSON.stringify(staged);
		if (items.length > 0 || activation !== undefined) this.#saved = JSON.stringify(workflow.staticData);
		return items;
	}

	async #run(mode: WorkflowExecuteMode, activation: WorkflowActivateMode, workflow: Workflow, staged?: IDataObject) {
		const node = workflow.getNode(this.#node.name) as INode;
		const additionalData = createAdditionalData({
			credentials: {},
			credentialsHelper: new TestCredentialsHelper({
				bookingServiceApi: { apiKey: this.#options.apiKey, baseUrl: this.#options.baseUrl },
			}),
		});
		const budgetMs = this.#options.pollBudgetMs ?? (this.scheduler === 'durable' ? DURABLE_POLL_BUDGET_MS : 300_000);
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			mode,
			activation,
			undefined,
			undefined,
			undefined,
			undefined,
			staged === undefined ? undefined : () => staged,
			() => budgetMs,
		);
		const result = await this.nodeType.poll.call(context);
		return result?.[0] ?? [];
	}

	#load(): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: 'Polling test',
			nodes: [structuredClone(this.#node)],
			connections: {},
			active: true,
			nodeTypes: createNodeTypes({ [POLLING_TRIGGER_NODE_TYPE]: this.nodeType }),
			staticData: JSON.parse(this.#saved) as IDataObject,
			settings: { timezone: this.#options.timezone ?? 'UTC' },
		});
	}
}
