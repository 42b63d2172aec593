/**
 * Runs the Booking Service Trigger the way n8n runs a webhook trigger, without n8n's server:
 *
 * - `checkExists` / `create` / `delete` are called through n8n-core's own `HookContext`, in the order and with the
 *   modes n8n's WebhookService uses (activation: checkExists, then create only if it said false; deactivation:
 *   delete with mode 'internal').
 * - A real HTTP server on 127.0.0.1 plays n8n's webhook endpoint: it receives the simulator's signed deliveries at
 *   the node's Production URL (`/webhook/<webhookId>/webhook`) or, while "listening for a test event", its Test URL
 *   (`/webhook-test/…`), keeps the raw body bytes as `rawBody` beside the parsed `body` (as n8n's body parser does),
 *   and calls the node's `webhook()` through n8n-core's own `WebhookContext`, with the Node.js response object.
 * - It answers as n8n does for `responseMode: 'onReceived'`: nothing more when the node answered itself
 *   (`noWebhookResponse`), 200 with `webhookResponse` when the node returned no `workflowData`, and otherwise starts
 *   an execution (recorded in `executions`) and answers per the description's `responseData`.
 * - Static data behaves as in n8n: production static data is stored as JSON (the workflow row), loaded into a fresh
 *   `Workflow` for every activation, request and deactivation, and saved only when n8n would save it (its
 *   `__dataChanged` flag). In test mode, static data starts empty, the state after `create` is kept with the test
 *   registration and handed to each request through `setTestStaticData`, and nothing a request writes is kept.
 */
import './n8n-environment.ts';

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';
import { createAdditionalData, createNodeTypes, TestCredentialsHelper } from './engine.ts';
import type { LogLine } from './engine-webhooks.ts';
import { recordLogs, runWebhookMethod, staticDataToSave, webhookDataOf, webhookRequestContext } from './engine-webhooks.ts';
import { closeServer, listenOnLoopback } from './loopback.ts';

export const TRIGGER_NODE_TYPE = 'n8n-nodes-booking-service.bookingServiceTrigger';

export interface TriggerHarnessOptions {
	/** The credential's base URL, e.g. the simulator's `baseUrl`. */
	baseUrl: string;
	apiKey: string;
	/** The node's parameters (`events`, `options`). */
	parameters: IDataObject;
	workflowName?: string;
	/**
	 * A copy of another workflow: its saved static data (`TriggerHarness.savedStaticData`), carried along as n8n's
	 * export/import and public API do. The copy gets its own workflow id; `webhookId` as the copy has it.
	 */
	copyOf?: { savedStaticData: string; webhookId?: string };
	/** The workflow id; default a new one. The same workflow imported into another n8n instance keeps its id. */
	workflowId?: string;
	/**
	 * The n8n instance id the node sees (`getInstanceId()`); default n8n-core's own. Two harnesses with different ids
	 * play two n8n instances, each with its own webhook URL (its own port).
	 */
	instanceId?: string;
	/** The port to listen on (default a free one): a restarted n8n serves its webhooks at the same address. */
	port?: number;
	/** Where production static data is stored; queue mode's processes share one (the database), not their memory. */
	store?: StaticDataStore;
}

/** The workflow row's static data as JSON text. */
export interface StaticDataStore {
	text: string;
}

export interface RecordedExecution {
	mode: 'production' | 'test';
	items: INodeExecutionData[];
}

export interface ReceivedRequest {
	mode: 'production' | 'test';
	headers: IncomingHttpHeaders;
	rawBody: Buffer;
}

export interface RecordedAnswer {
	mode: 'production' | 'test';
	status: number;
	body: string;
	/** Set when the node's webhook() threw: n8n answers 500 and records a failed execution. */
	error?: string;
}

type UrlKind = 'production' | 'test';

export class TriggerHarness {
	readonly executions: RecordedExecution[] = [];
	readonly answers: RecordedAnswer[] = [];
	/** Every request that reached a registered URL, as received: the simulator's real deliveries included. */
	readonly received: ReceivedRequest[] = [];
	/** Everything the node logged through `this.logger`, to check that no secret ever reaches a log. */
	readonly logs: LogLine[] = [];
	/** Production requests after which n8n would have saved static data (webhook() changed it). */
	webhookStaticDataSaves = 0;
	/**
	 * Runs after a production request has loaded static data and before the node's webhook() is called — where, in
	 * n8n, main can re-activate the workflow while a webhook process handles a delivery (see the race test).
	 */
	beforeWebhook: (() => Promise<void>) | undefined;

	readonly #server: Server;
	readonly #nodeType: INodeType = new BookingServiceTrigger();
	readonly #nodeTypes = createNodeTypes({ [TRIGGER_NODE_TYPE]: this.#nodeType });
	#credentials: TestCredentialsHelper;
	#parameters: IDataObject;
	readonly #workflowName: string;
	#node: Omit<INode, 'parameters'> = {
		id: '0f7c5a52-1d2e-4b8a-9f3c-5e6d7a8b9c0d',
		name: 'Booking Service Trigger',
		type: TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId: 'c2d7e0f4-8a61-4b5e-9d3a-71f0b2c4e6a8',
		credentials: { bookingServiceApi: { id: 'cred-1', name: 'Booking Service account' } },
	};
	/** Credential reads by the node, across credential changes. */
	#decryptionsBefore = 0;
	/** Unique per harness unless given, as workflow ids are per n8n instance. */
	readonly workflowId: string;
	readonly #instanceId: string | undefined;
	readonly #port: number;
	/** Production static data as the database holds it. */
	readonly #store: StaticDataStore;
	/** The test registration's copy of static data, while listening for a test event. */
	#testRegistration: IDataObject | undefined;
	#active = false;
	/** Work n8n does after answering a request (removing the test webhook), for `whenIdle`. */
	#afterResponse: Array<Promise<void>> = [];
	origin = '';

	constructor(options: TriggerHarnessOptions) {
		this.#credentials = new TestCredentialsHelper({
			bookingServiceApi: { apiKey: options.apiKey, baseUrl: options.baseUrl },
		});
		this.#parameters = options.parameters;
		this.#workflowName = options.workflowName ?? 'Booking follow-ups';
		this.workflowId = options.workflowId ?? `wf-${randomUUID()}`;
		this.#instanceId = options.instanceId;
		this.#port = options.port ?? 0;
		this.#store = options.store ?? { text: '{}' };
		if (options.copyOf) {
			this.#store.text = options.copyOf.savedStaticData;
			this.#node = { ...this.#node, webhookId: options.copyOf.webhookId ?? this.#node.webhookId };
		}
		this.#server = createServer((request, response) => {
			void this.#handle(request, response);
		});
	}

	async start(): Promise<this> {
		this.origin = await listenOnLoopback(this.#server, this.#port);
		return this;
	}

	async close(): Promise<void> {
		await closeServer(this.#server);
	}

	get productionUrl(): string {
		return `${this.origin}/webhook/${this.#node.webhookId}/webhook`;
	}

	get testUrl(): string {
		return `${this.origin}/webhook-test/${this.#node.webhookId}/webhook`;
	}

	/** Resolves when the work n8n does after answering requests has finished. */
	async whenIdle(): Promise<void> {
		await Promise.all(this.#afterResponse.splice(0));
	}

	/** Production static data as last saved, parsed. */
	get staticData(): IDataObject {
		return JSON.parse(this.#store.text) as IDataObject;
	}

	/** The node's own part of production static data. */
	get nodeStaticData(): IDataObject {
		return (this.staticData[`node:${this.#node.name}`] ?? {}) as IDataObject;
	}

	/** Edits the node's saved static data, as someone with database access (or a bad import) could. */
	editNodeStaticData(edit: (nodeData: IDataObject) => void): void {
		const all = this.staticData;
		const key = `node:${this.#node.name}`;
		const nodeData = (all[key] ?? {}) as IDataObject;
		edit(nodeData);
		all[key] = nodeData;
		this.#store.text = JSON.stringify(all);
	}

	/** A new version of the workflow with other parameters (n8n re-activates it: delete with the old, then create). */
	setParameters(parameters: IDataObject): void {
		this.#parameters = parameters;
	}

	/** The credential is edited (e.g. a new API key); n8n reads it fresh every time. */
	setCredential(data: { apiKey: string; baseUrl: string }): void {
		this.#decryptionsBefore += this.#credentials.decryptions;
		this.#credentials = new TestCredentialsHelper({ bookingServiceApi: data });
	}

	/** How many times the node has read (in n8n: decrypted) its credential so far. */
	get credentialReads(): number {
		return this.#decryptionsBefore + this.#credentials.decryptions;
	}

	/** Production static data exactly as saved (JSON text), as an export or the public API would carry it. */
	get savedStaticData(): string {
		return this.#store.text;
	}

	/**
	 * Serves the Production URL without running any hook, as a queue-mode webhook process serves what main activated
	 * (or stops serving it, as when main deactivated the workflow).
	 */
	serveProduction(serving: boolean): void {
		this.#active = serving;
	}

	/** Workflow activation: checkExists, then create only when it said false. Throws what create throws. */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<{ created: boolean }> {
		const workflow = this.#workflow(this.#loadStaticData());
		const webhookData = this.#webhookData(workflow, false);
		let exists: boolean | undefined;
		try {
			exists = await this.#runHook('checkExists', workflow, webhookData, 'trigger', activation);
			if (!exists) await this.#runHook('create', workflow, webhookData, 'trigger', activation);
		} catch (error) {
			// As n8n's ActiveWorkflowManager.addWebhooks: nothing the failed activation changed is saved, and its
			// clean-up calls delete with the static data as stored (clearWebhooks), then saves what delete changed.
			await this.deactivate();
			throw error;
		}
		this.#saveStaticData(workflow);
		this.#active = true;
		return { created: !exists };
	}

	/** Workflow deactivation. Resolves whether or not `delete` succeeded on the service, as n8n needs it to. */
	async deactivate(): Promise<void> {
		const workflow = this.#workflow(this.#loadStaticData());
		await this.#runHook('delete', workflow, this.#webhookData(workflow, false), 'internal', 'update');
		this.#saveStaticData(workflow);
		this.#active = false;
	}

	/** "Listen for test event": the same lifecycle against the Test URL, with its own, empty static data. */
	async listenForTestEvent(): Promise<void> {
		const workflow = this.#workflow({});
		const webhookData = this.#webhookData(workflow, true);
		const exists = await this.#runHook('checkExists', workflow, webhookData, 'manual', 'manual');
		if (!exists) await this.#runHook('create', workflow, webhookData, 'manual', 'manual');
		this.#testRegistration = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
	}

	/** The test webhook is removed (an event arrived, or the listening time ran out). */
	async stopListening(): Promise<void> {
		if (this.#testRegistration === undefined) return;
		// A copy: n8n's Workflow wraps what it is given in proxies, and a delivery may read the registration meanwhile.
		const workflow = this.#workflow(structuredClone(this.#testRegistration));
		await this.#runHook('delete', workflow, this.#webhookData(workflow, true), 'internal', 'update');
		this.#testRegistration = undefined;
	}

	/** Sends a request to the node's Production URL, as an attacker or a misbehaving proxy could. */
	async post(
		body: string | Buffer,
		headers: Record<string, string>,
		url = this.productionUrl,
	): Promise<{ status: number; body: string }> {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', ...headers },
			body,
		});
		return { status: response.status, body: await response.text() };
	}

	#loadStaticData(): IDataObject {
		return JSON.parse(this.#store.text) as IDataObject;
	}

	/** Stores static data when n8n would (it changed); says whether it did. */
	#saveStaticData(workflow: Workflow): boolean {
		const saved = staticDataToSave(workflow);
		if (saved === undefined) return false;
		this.#store.text = saved;
		return true;
	}

	#workflow(staticData: IDataObject): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: this.#workflowName,
			nodes: [{ ...this.#node, parameters: structuredClone(this.#parameters) } as INode],
			connections: {},
			active: this.#active,
			nodeTypes: this.#nodeTypes,
			staticData,
		});
	}

	#webhookData(workflow: Workflow, isTest: boolean): IWebhookData {
		return webhookDataAt(this.origin, this.#credentials, this.#nodeType, workflow, this.#node, isTest);
	}

	async #runHook(
		method: 'checkExists' | 'create' | 'delete',
		workflow: Workflow,
		webhookData: IWebhookData,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		return await runWebhookMethod(this.#nodeType, method, workflow, webhookData, { mode, activation }, (context) =>
			this.#instrument(context),
		);
	}

	/**
	 * n8n-core hands every context the process-wide logger; recording what the node logs lets tests inspect it. The
	 * instance id, when given, replaces n8n-core's (one per process) so that two harnesses can be two instances.
	 */
	#instrument(context: object): void {
		if (this.#instanceId !== undefined) {
			const instanceId = this.#instanceId;
			Object.defineProperty(context, 'getInstanceId', { value: () => instanceId });
		}
		recordLogs(context, this.logs);
	}

	async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const rawBody = Buffer.concat(chunks);

		const kind = this.#urlKind(request);
		if (kind === undefined || request.method !== 'POST') {
			response.writeHead(404, { 'Content-Type': 'application/json' });
			response.end(JSON.stringify({ message: 'The requested webhook is not registered.' }));
			return;
		}

		this.received.push({ mode: kind, headers: { ...request.headers }, rawBody });
		const workflow =
			kind === 'production' ? this.#workflow(this.#loadStaticData()) : this.#testWorkflow(this.#testRegistration!);
		if (kind === 'production') await this.beforeWebhook?.();
		const webhookData = this.#webhookData(workflow, kind === 'test');
		const context = webhookRequestContext(workflow, webhookData, kind === 'production' ? 'webhook' : 'manual', {
			request,
			rawBody,
			response,
		});
		this.#instrument(context);

		let result;
		try {
			result = await this.#nodeType.webhook!.call(context);
		} catch (error) {
			this.#answer(response, kind, 500, JSON.stringify({ message: 'Error in workflow' }), (error as Error).message);
			return;
		}
		if (kind === 'production' && this.#saveStaticData(workflow)) this.webhookStaticDataSaves += 1;

		if (result.noWebhookResponse === true) {
			if (!response.writableEnded) response.end();
			this.answers.push({ mode: kind, status: response.statusCode, body: '' });
		} else if (result.workflowData === undefined) {
			this.#answer(response, kind, 200, JSON.stringify(result.webhookResponse ?? { message: 'Webhook call received' }));
		} else {
			this.executions.push({ mode: kind, items: result.workflowData[0] ?? [] });
			// responseData 'noData': an empty 200.
			this.#answer(response, kind, 200, '');
			// n8n removes the test webhook once its event has started an execution, after answering.
			if (kind === 'test') this.#afterResponse.push(this.stopListening());
		}
	}

	#testWorkflow(registration: IDataObject): Workflow {
		const workflow = this.#workflow({});
		workflow.setTestStaticData(structuredClone(registration));
		return workflow;
	}

	#answer(response: ServerResponse, mode: UrlKind, status: number, body: string, error?: string): void {
		response.writeHead(status, { 'Content-Type': 'application/json' });
		response.end(body);
		this.answers.push({ mode, status, body, ...(error === undefined ? {} : { error }) });
	}

	#urlKind(request: IncomingMessage): UrlKind | undefined {
		const path = new URL(request.url ?? '/', this.origin).pathname;
		if (path === new URL(this.productionUrl).pathname && this.#active) return 'production';
		if (path === new URL(this.testUrl).pathname && this.#testRegistration !== undefined) return 'test';
		return undefined;
	}
}

/** The webhook n8n registers for a trigger node, with n8n's webhooks served at `origin` (a harness's own server). */
export function webhookDataAt(
	origin: string,
	credentialsHelper: TestCredentialsHelper,
	nodeType: INodeType,
	workflow: Workflow,
	node: Pick<INode, 'name' | 'webhookId'>,
	isTest: boolean,
): IWebhookData {
	const additionalData = createAdditionalData({
		credentials: {},
		credentialsHelper,
		webhookBaseUrl: `${origin}/webhook`,
		webhookTestBaseUrl: `${origin}/webhook-test`,
	});
	return webhookDataOf(nodeType, workflow, node, additionalData, isTest);
}

export async function startTriggerHarness(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	return await new TriggerHarness(options).start();
}
