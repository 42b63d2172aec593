/**
 * The n8n engine for benchmark workers, with the nodes as they ship: the BUILT files in dist/ (run `npm run build`
 * first; `npm run bench` does), loaded with require exactly as n8n loads a community package.
 *
 * Why not test/harness/engine.ts: it loads the TypeScript sources with extensionless imports, which only vitest
 * resolves, and a benchmark should time the compiled code users run. Why not vitest: the bench needs fresh processes,
 * `--expose-gc` and `--cpu-prof` per section, and its own report; plain Node 24 gives all three. What both need and can
 * share — applying the credential's declarative `authenticate`, the fixed part of the additional data — lives in
 * test/harness/engine-common.ts; this file keeps only its own credentials helper and node types.
 *
 * n8n-core and n8n-workflow are required (CommonJS), never imported: n8n-core requires n8n-workflow's CJS build, and
 * an ESM copy beside it would break its `instanceof` checks.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as N8nCore from 'n8n-core';
import type * as N8nWorkflow from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	Workflow as WorkflowType,
} from 'n8n-workflow';

import { applyDeclarativeAuthenticate, baseAdditionalData } from '../harness/engine-common.ts';
import { distDir, REPO_ROOT } from './processes.ts';

// n8n-core writes its instance settings under N8N_USER_FOLDER when first required: a throwaway folder, never ~/.n8n.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'booking-bench-n8n-'));
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_VERSION_NOTIFICATIONS_ENABLED ??= 'false';
// Otherwise n8n-core generates one and says so on stderr.
process.env.N8N_ENCRYPTION_KEY ??= 'booking-service-bench';

const requireFromRepo = createRequire(join(REPO_ROOT, 'package.json'));
const workflowLib = requireFromRepo('n8n-workflow') as typeof N8nWorkflow;
const core = requireFromRepo('n8n-core') as typeof N8nCore;
const { NodeHelpers, UnexpectedError, Workflow, createRunExecutionData } = workflowLib;

function requireDist<T>(file: string): T {
	try {
		return requireFromRepo(join(distDir(), file)) as T;
	} catch (error) {
		throw new Error(`cannot load ${join(distDir(), file)}: run \`npm run build\` first (${(error as Error).message})`);
	}
}

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

function createNodeTypes(): INodeTypes {
	const types: Record<string, INodeType> = {
		[ACTION_NODE_TYPE]: new BookingService(),
		[TRIGGER_NODE_TYPE]: new BookingServiceTrigger(),
		[POLLING_TRIGGER_NODE_TYPE]: new BookingServicePollingTrigger(),
		[MINIMAL_PAGER_NODE_TYPE]: new MinimalPager(),
	};
	const lookUp = (name: string) => {
		const type = types[name];
		if (type === undefined) throw new UnexpectedError(`Unknown node type "${name}" in the bench engine`);
		return type;
	};
	return {
		getByName: lookUp,
		getByNameAndVersion: (name, version) => NodeHelpers.getVersionedNodeType(lookUp(name), version),
		getKnownTypes: () => ({}),
	};
}

const credentialType = new BookingServiceApi();

/**
 * Hands nodes the bench's credential and applies the credential's declarative `authenticate` as n8n's own
 * CredentialsHelper does: each `=` expression resolved by the workflow's expression engine with `$credentials`, on
 * every request.
 */
class BenchCredentialsHelper extends workflowLib.ICredentialsHelper {
	readonly credential: BookingServiceCredential;

	constructor(credential: BookingServiceCredential) {
		super();
		this.credential = credential;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: WorkflowType,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = credentialType.authenticate;
		if (authenticate === undefined || typeof authenticate === 'function' || workflow === undefined || node === undefined) {
			throw new UnexpectedError('the bench expects the declarative authenticate of the Booking Service credential');
		}
		return applyDeclarativeAuthenticate(authenticate.properties, requestOptions, (text) =>
			typeof text === 'string' && text.startsWith('=')
				? workflow.expression.getSimpleParameterValue(node, text, 'internal', { $credentials: credentials })
				: text,
		);
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new UnexpectedError('getCredentials is not available in the bench engine');
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.credential };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(): INodeProperties[] {
		return credentialType.properties;
	}
}

function notInBench(what: string) {
	return async () => {
		throw new UnexpectedError(`${what} is not available in the bench engine`);
	};
}

const N8N_ORIGIN = 'http://127.0.0.1:5678';

function createAdditionalData(
	credential: BookingServiceCredential,
	hooks?: N8nCore.ExecutionLifecycleHooks,
	executionId?: string,
): IWorkflowExecuteAdditionalData {
	return baseAdditionalData({
		credentialsHelper: new BenchCredentialsHelper(credential),
		hooks,
		executionId,
		unavailable: notInBench,
	});
}

const nodeTypes = createNodeTypes();

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
	const settings = { timezone: 'UTC', executionOrder: 'v1' as const };
	const workflow = new Workflow({
		id: 'bench',
		name: 'Bench',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		settings,
	});
	const executionId = randomUUID();
	const hooks = new core.ExecutionLifecycleHooks('webhook', executionId, {
		id: workflow.id,
		name: workflow.name,
		active: true,
		isArchived: false,
		nodes: [node],
		connections: {},
		settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});
	const runExecutionData = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }] },
	});
	const execution = new core.WorkflowExecute(createAdditionalData(credential, hooks, executionId), 'webhook', runExecutionData);
	await execution.processRunExecutionData(workflow);
	const run = await finished;
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
	const additionalData = createAdditionalData(credential);
	const webhookDescription = nodeType.description.webhooks![0] as IWebhookDescription;
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: `${node.webhookId}/${webhookDescription.path}`,
		webhookDescription,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		isTest: false,
	};
	const hook = async (method: 'checkExists' | 'create' | 'delete') => {
		const context = new core.HookContext(workflow, node, additionalData, 'trigger', 'activate', webhookData);
		return await nodeType.webhookMethods!.default![method]!.call(context);
	};
	if (!(await hook('checkExists'))) await hook('create');
	return {
		webhookUrl: `${N8N_ORIGIN}/webhook/${webhookData.path}`,
		prepareDelivery(rawBody, headers) {
			let body: unknown = {};
			try {
				body = JSON.parse(rawBody.toString('utf8'));
			} catch {
				// n8n leaves an unparseable body empty; the node reads rawBody
			}
			const requestData = { ...additionalData };
			requestData.httpRequest = { rawBody, body, headers, params: {}, query: {}, method: 'POST' } as never;
			requestData.httpResponse = createResponseStub() as never;
			return new core.WebhookContext(workflow, node, requestData, 'webhook', webhookData, [], null);
		},
		async deliver(context) {
			return await nodeType.webhook!.call(context);
		},
		async deactivate() {
			await hook('delete');
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
	const context = new core.PollContext(workflow, node, createAdditionalData(credential), 'trigger', 'activate');
	const nodeType = nodeTypes.getByNameAndVersion(POLLING_TRIGGER_NODE_TYPE, 1);
	const result = await nodeType.poll!.call(context);
	// As n8n saves it: JSON (static data is an observable proxy in memory).
	return { items: result?.[0] ?? [], staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject };
}
