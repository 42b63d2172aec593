/**
 * Runs the Booking Service Polling Trigger the way n8n runs a polling node, without n8n's server: `poll()` through
 * n8n-core's own PollContext, on one Workflow object for the life of an activation (as n8n does), with static data
 * saved — as JSON, like the workflow row — only after a poll that emitted items (n8n's default). `restart()` is an
 * n8n restart: a new Workflow object from what was saved, and the next poll runs with activation mode 'init'.
 */
import './n8n-environment.ts';

import { randomUUID } from 'node:crypto';

import type { IDataObject, INode, INodeExecutionData, WorkflowActivateMode, WorkflowExecuteMode } from 'n8n-workflow';
import { PollContext } from 'n8n-core';
import { Workflow } from 'n8n-workflow';

import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { createAdditionalData, createNodeTypes, TestCredentialsHelper } from './engine.ts';

export const POLLING_TRIGGER_NODE_TYPE = 'n8n-nodes-booking-service.bookingServicePollingTrigger';

export interface PollHarnessOptions {
	baseUrl: string;
	apiKey: string;
	parameters: IDataObject;
	timezone?: string;
	/** Saved static data of another workflow (a copy). */
	savedStaticData?: string;
}

export class PollHarness {
	readonly nodeType = new BookingServicePollingTrigger();
	readonly workflowId = `wf-${randomUUID()}`;
	/** Every item emitted by production polls, in order. */
	readonly emitted: INodeExecutionData[] = [];
	#saved: string;
	#workflow: Workflow;
	#activation: WorkflowActivateMode = 'activate';
	readonly #options: PollHarnessOptions;
	readonly #node: INode;

	constructor(options: PollHarnessOptions) {
		this.#options = options;
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

	/** Static data as last saved (what survives a restart). */
	get savedStaticData(): string {
		return this.#saved;
	}

	/** n8n restarts: the in-memory workflow is gone; the next poll starts from what was saved. */
	restart(): void {
		this.#workflow = this.#load();
		this.#activation = 'init';
	}

	/** One scheduled poll (mode 'trigger'); returns the items it emitted, [] for none. */
	async poll(): Promise<INodeExecutionData[]> {
		const items = await this.#run('trigger', this.#activation, this.#workflow);
		this.#activation = 'activate';
		if (items.length > 0) {
			this.emitted.push(...items);
			this.#saved = JSON.stringify(this.#workflow.staticData);
		}
		return items;
	}

	/** "Fetch Test Event": a manual run on its own copy of static data, which is never saved. */
	async fetchTestEvent(): Promise<INodeExecutionData[]> {
		return await this.#run('manual', 'manual', this.#load());
	}

	async #run(mode: WorkflowExecuteMode, activation: WorkflowActivateMode, workflow: Workflow) {
		const node = workflow.getNode(this.#node.name) as INode;
		const additionalData = createAdditionalData({
			credentials: {},
			credentialsHelper: new TestCredentialsHelper({
				bookingServiceApi: { apiKey: this.#options.apiKey, baseUrl: this.#options.baseUrl },
			}),
		});
		const context = new PollContext(workflow, node, additionalData, mode, activation);
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
