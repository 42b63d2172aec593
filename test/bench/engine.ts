/**
 * The n8n engine for benchmark workers, with the nodes as they ship: the BUILT files in dist/ (run `npm run build`
 * first; `npm run bench` does), loaded with require exactly as n8n loads a community package.
 *
 * Why not test/harness/engine.ts itself: it loads the TypeScript sources with extensionless imports, which only vitest
 * resolves, and a benchmark should time the compiled code users run. Why not vitest: the bench needs fresh processes,
 * `--expose-gc` and `--cpu-prof` per section, and its own report; plain Node 24 gives all three. The engine itself —
 * node types, the credentials helper, additional data, one execution, a trigger's hook and request contexts — is the
 * harness's (test/harness/engine-*.ts, which require the one CommonJS copy of n8n-core and n8n-workflow); this
 * file adds only what the bench runs on it: the built nodes, a minimal pager to compare with, and the three entry
 * points its workers call.
 */
import './n8n-environment.ts';

import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookResponseData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import type * as N8nCore from 'n8n-core';

import { createAdditionalData, executeWorkflow, n8nCore, n8nWorkflow, nodeTypeRegistry } from '../harness/engine-common.ts';
import { EngineCredentialsHelper } from '../harness/engine-credentials.ts';
import { runWebhookMethod, webhookDataOf, webhookRequestContext } from '../harness/engine-webhooks.ts';
import { distDir, REPO_ROOT } from './processes.ts';

const { Workflow } = n8nWorkflow;
const requireFromRepo = createRequire(join(REPO_ROOT, 'package.json'));

function requireDist<T>(file: string): T {
	try {
		return requireFromRepo(join(distDir(), file)) as T;
	} catch (error) {
		throw new Error(`cannot load ${join(distDir(), file)}: run \`npm run build\` first (${(error as Error).message})`);
	}
}

/** What the webhook trigger's memory of what ran holds at most (entries; a delivery adds one or two). */
export const { MAX_RUN_RECORDS } = requireDist<{ MAX_RUN_RECORDS: number }>('nodes/BookingServiceTrigger/memory.js');

const { BookingServiceApi } = requireDist<{ BookingServiceApi: new () => ICredentialType }>(
	'credentials/BookingServiceApi.credentials.js',
);
const { BookingService } = requireDist<{ BookingService: new () => INodeType }>(
	'nodes/BookingService/BookingService.node.js',
);
const { BookingServiceTrigger } = requireDist<{ BookingServiceTrigger: new () => INodeType }>(
	'nodes/BookingServiceTrigger/BookingServiceTrigger.node.js',
);
const { BookingServicePollingTrigger } = requireDist<{ BookingServicePollingTrigger: new () => INodeType }>(
	'nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.js',
);

/** The type names n8n gives the package's nodes. */
export const ACTION_NODE_TYPE = 'n8n-nodes-booking-service.bookingService';
export const TRIGGER_NODE_TYPE = 'n8n-nodes-booking-service.bookingServiceTrigger';
export const POLLING_TRIGGER_NODE_TYPE = 'n8n-nodes-booking-service.bookingServicePollingTrigger';
const MINIMAL_PAGER_NODE_TYPE = 'bench.minimalPager';
const CREDENTIAL_TYPE = 'bookingServiceApi';
const CREDENTIAL_REFERENCE = { id: 'bench-credential', name: 'Booking Service account' };

export interface BookingServiceCredential extends ICredentialDataDecryptedObject {
	apiKey: string;
	baseUrl: string;
}

/**
 * The least any n8n node can do to read every page: loop over the cursor with n8n's own
 * `httpRequestWithAuthentication` (the helper our transport calls too) and emit each item. The difference between it
 * and the action node is what our code adds; the difference between it and a bare HTTP client is n8n's.
 */
class MinimalPager implements INodeType {
	description = {
		displayName: 'Minimal pager (bench)',
		name: MINIMAL_PAGER_NODE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Reads every page of GET /bookings with n8n\'s request helper and nothing else',
		defaults: { name: 'Minimal pager' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials<BookingServiceCredential>(CREDENTIAL_TYPE);
		const items: INodeExecutionData[] = [];
		let cursor: string | null = null;
		for (let page = 0; page < 1_000; page++) {
			const body = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, {
				method: 'GET',
				url: `${baseUrl}/bookings`,
				qs: { sort: '-createdAt', limit: 100, ...(cursor === null ? {} : { cursor }) },
				json: true,
			})) as { items: IDataObject[]; nextCursor: string | null };
			for (const json of body.items) items.push({ json, pairedItem: { item: 0 } });
			cursor = body.nextCursor;
			if (cursor === null) break;
		}
		return [items];
	}
}

const nodeTypes = nodeTypeRegistry({
	[ACTION_NODE_TYPE]: new BookingService(),
	[TRIGGER_NODE_TYPE]: new BookingServiceTrigger(),
	[POLLING_TRIGGER_NODE_TYPE]: new BookingServicePollingTrigger(),
	[MINIMAL_PAGER_NODE_TYPE]: new MinimalPager(),
});

const credentialTypes = { [CREDENTIAL_TYPE]: new BookingServiceApi() };

/** The credentials helper for one run: it hands nodes the bench's credential and applies its `authenticate`. */
function credentialsHelper(credential: BookingServiceCredential): EngineCredentialsHelper {
	return new EngineCredentialsHelper({ [CREDENTIAL_TYPE]: credential }, credentialTypes);
}

/**
 * Runs the action node as a whole workflow execution in production ('webhook') mode — the node first on the
 * execution stack with one empty input item, as a trigger would hand it over — and resolves with its output items.
 * Throws the execution's error if it failed.
 */
export async function runActionNode(
	parameters: IDataObject,
	credential: BookingServiceCredential,
): Promise<INodeExecutionData[]> {
	return await runSingleNode(ACTION_NODE_TYPE, parameters, credential);
}

/** The same execution with the minimal pager (see MinimalPager) in place of the action node. */
export async function runMinimalPager(credential: BookingServiceCredential): Promise<INodeExecutionData[]> {
	return await runSingleNode(MINIMAL_PAGER_NODE_TYPE, {}, credential);
}

async function runSingleNode(
	type: string,
	parameters: IDataObject,
	credential: BookingServiceCredential,
): Promise<INodeExecutionData[]> {
	const node: INode = {
		id: randomUUID(),
		name: 'Booking Service',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INodeParameters,
		credentials: { [CREDENTIAL_TYPE]: CREDENTIAL_REFERENCE },
	};
	const workflow = new Workflow({
		id: 'bench',
		name: 'Bench',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		settings: { timezone: 'UTC', executionOrder: 'v1' },
	});
	const run = await executeWorkflow(workflow, {
		mode: 'webhook',
		credentialsHelper: credentialsHelper(credential),
		start: { node, items: [{ json: {} }] },
		executionId: randomUUID(),
	});
	const error = run.data.resultData.error;
	if (error !== undefined) throw new Error(`the workflow failed: ${error.message}`);
	return run.data.resultData.runData[node.name]?.at(-1)?.data?.main?.[0] ?? [];
}

/** A minimal stand-in for the Node.js response n8n hands a webhook (only written to when a delivery is refused). */
function createResponseStub() {
	const response = {
		statusCode: 200,
		writableEnded: false,
		writeHead(status: number) {
			response.statusCode = status;
			return response;
		},
		status(status: number) {
			response.statusCode = status;
			return response;
		},
		setHeader() {
			return response;
		},
		send() {
			return response;
		},
		end() {
			response.writableEnded = true;
			return response;
		},
	};
	return response;
}

export interface ActiveTrigger {
	/** Where the service was told to deliver (n8n's Production URL of the node). */
	webhookUrl: string;
	/**
	 * A context for one delivery, made as n8n makes one per request (n8n-core's WebhookContext over the request with
	 * its raw body and lower-cased headers). Building it is n8n's work; `deliver` times only the node's webhook().
	 */
	prepareDelivery(rawBody: Buffer, headers: Record<string, string>): N8nCore.WebhookContext;
	deliver(context: N8nCore.WebhookContext): Promise<IWebhookResponseData>;
	/** The node's delete(): removes the subscription on the service. */
	deactivate(): Promise<void>;
}

/**
 * The Booking Service Trigger of one active workflow, production mode: checkExists and create ran through n8n-core's
 * HookContext (so the subscription exists on the service and the sealed secret sits in static data), and the
 * workflow object, with its static data, persists across deliveries as in a long-running n8n.
 */
export async function activateTrigger(
	parameters: IDataObject,
	credential: BookingServiceCredential,
): Promise<ActiveTrigger> {
	const nodeType = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1);
	const node: INode = {
		id: randomUUID(),
		name: 'Booking Service Trigger',
		type: TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: parameters as INodeParameters,
		credentials: { [CREDENTIAL_TYPE]: CREDENTIAL_REFERENCE },
	};
	const workflow = new Workflow({
		id: `bench-${randomUUID()}`,
		name: 'Bench trigger',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: {},
	});
	const additionalData = createAdditionalData({ credentialsHelper: credentialsHelper(credential) });
	const webhookData = webhookDataOf(nodeType, workflow, node, additionalData, false);
	const hook = async (method: 'checkExists' | 'create' | 'delete', mode: WorkflowExecuteMode) =>
		await runWebhookMethod(nodeType, method, workflow, webhookData, { mode, activation: 'activate' });
	if (!(await hook('checkExists', 'trigger'))) await hook('create', 'trigger');
	return {
		webhookUrl: `${additionalData.webhookBaseUrl}/${webhookData.path}`,
		prepareDelivery(rawBody, headers) {
			const request = { headers, method: 'POST' };
			return webhookRequestContext(workflow, webhookData, 'webhook', { request, rawBody, response: createResponseStub() });
		},
		async deliver(context) {
			return await nodeType.webhook!.call(context);
		},
		async deactivate() {
			await hook('delete', 'trigger');
		},
	};
}

/**
 * One scheduled poll of the polling trigger (production mode, through n8n-core's PollContext) from the given static
 * data; resolves with the items it emitted ([] for none) and the static data afterwards.
 */
export async function runPoll(
	staticData: IDataObject,
	credential: BookingServiceCredential,
): Promise<{ items: INodeExecutionData[]; staticData: IDataObject }> {
	const node: INode = {
		id: 'bench-poller',
		name: 'Booking Service Polling Trigger',
		type: POLLING_TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { events: ['*'], options: {} } as INodeParameters,
		credentials: { [CREDENTIAL_TYPE]: CREDENTIAL_REFERENCE },
	};
	const workflow = new Workflow({
		id: 'bench-polling',
		name: 'Bench polling',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: JSON.parse(JSON.stringify(staticData)) as IDataObject,
	});
	const additionalData = createAdditionalData({ credentialsHelper: credentialsHelper(credential) });
	const context = new n8nCore.PollContext(workflow, node, additionalData, 'trigger', 'activate');
	const nodeType = nodeTypes.getByNameAndVersion(POLLING_TRIGGER_NODE_TYPE, 1);
	const result = await nodeType.poll!.call(context);
	// As n8n saves it: JSON (static data is an observable proxy in memory).
	return { items: result?.[0] ?? [], staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject };
}
