/**
 * Runs workflows through n8n's real execution engine (n8n-core's WorkflowExecute), with our nodes loaded from
 * source and talking real HTTP — to the simulator on 127.0.0.1 in our tests. Nothing stands in for the transport:
 * requests go through n8n's own `httpRequestWithAuthentication`, the engine's Retry On Fail, Continue On Fail and
 * paired-item handling are n8n's.
 *
 *   const result = await runWorkflow({
 *     nodes: [bookingServiceNode('List', { resource: 'booking', operation: 'getMany', returnAll: true })],
 *     credentials: { bookingServiceApi: { apiKey, baseUrl } },
 *   });
 *   result.items.List  // INodeExecutionData[] of the node's first output
 *   result.error       // the execution's error (a plain object after the run), if it failed
 *
 * Exported for the trigger's tests too: createNodeTypes, TestCredentialsHelper, createAdditionalData.
 */
import './n8n-environment';

import { randomUUID } from 'node:crypto';

import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IConnections,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
} from 'n8n-workflow';
import {
	createRunExecutionData,
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
} from 'n8n-workflow';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials';
import { BookingService } from '../../nodes/BookingService/BookingService.node';
import { applyDeclarativeAuthenticate, baseAdditionalData } from './engine-common.ts';
import { START_NODE_TYPE, StartNode } from './start-node';

export { START_NODE_TYPE };

/** The type name n8n gives the action node when the package is installed. */
export const BOOKING_SERVICE_NODE_TYPE = 'n8n-nodes-booking-service.bookingService';
export const BOOKING_SERVICE_CREDENTIAL_TYPE = 'bookingServiceApi';

export type NodeTypeMap = Record<string, INodeType | IVersionedNodeType>;

/** The node types the engine may run: the action node and the start node, plus any given (e.g. the trigger). */
export function createNodeTypes(extra: NodeTypeMap = {}): INodeTypes {
	const types: NodeTypeMap = {
		[BOOKING_SERVICE_NODE_TYPE]: new BookingService(),
		[START_NODE_TYPE]: new StartNode(),
		...extra,
	};
	const lookUp = (name: string) => {
		const type = types[name];
		if (type === undefined)
			throw new UnexpectedError(`Unknown node type "${name}" in the engine harness`);
		return type;
	};
	return {
		getByName: lookUp,
		getByNameAndVersion: (name, version) => NodeHelpers.getVersionedNodeType(lookUp(name), version),
		getKnownTypes: () => ({}),
	};
}

const DEFAULT_CREDENTIAL_TYPES: Record<string, ICredentialType> = {
	[BOOKING_SERVICE_CREDENTIAL_TYPE]: new BookingServiceApi(),
};

/**
 * Hands nodes the test's credential data and applies the credential type's declarative `authenticate` the way
 * n8n's own CredentialsHelper does: `=` expressions resolved with `$credentials` by the workflow's expression
 * engine, then merged into the request's headers / qs / body / auth.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly credentialsByType: Record<string, ICredentialDataDecryptedObject>;

	private readonly credentialTypes: Record<string, ICredentialType>;

	constructor(
		credentialsByType: Record<string, ICredentialDataDecryptedObject>,
		credentialTypes: Record<string, ICredentialType> = DEFAULT_CREDENTIAL_TYPES,
	) {
		super();
		this.credentialsByType = credentialsByType;
		this.credentialTypes = credentialTypes;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.credentialTypes[typeName]?.authenticate;
		if (authenticate === undefined) return requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		return applyDeclarativeAuthenticate(authenticate.properties, requestOptions, (value) =>
			resolveCredentialExpression(value, credentials, workflow, node),
		);
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		throw new UnexpectedError(
			`getCredentials(${type}) is not available in the engine harness; use getDecrypted`,
		);
	}

	/** How many times a node read (in n8n: decrypted) a credential through this helper. */
	decryptions = 0;

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_details: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		this.decryptions++;
		const data = this.credentialsByType[type];
		if (data === undefined)
			throw new UnexpectedError(`The test gave no credential data of type "${type}"`);
		// A copy: nodes and n8n may add fields (e.g. preAuthentication results) to what they get.
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}
}

/** Resolves one `=`-prefixed value of a declarative credential definition, as n8n does, with `$credentials`. */
export function resolveCredentialExpression(
	value: unknown,
	credentials: ICredentialDataDecryptedObject,
	workflow?: Workflow,
	node?: INode,
): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	const expressionWorkflow =
		workflow ??
		new Workflow({ nodes: [], connections: {}, active: false, nodeTypes: createNodeTypes() });
	const expressionNode =
		node ??
		({
			name: 'Credential',
			type: 'credential',
			typeVersion: 1,
			parameters: {},
		} as unknown as INode);
	return expressionWorkflow.expression.getSimpleParameterValue(
		expressionNode,
		value,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
}

export interface AdditionalDataOptions {
	credentials: Record<string, ICredentialDataDecryptedObject>;
	hooks?: ExecutionLifecycleHooks;
	executionId?: string;
	/** Where n8n says its webhooks live; the trigger's create() sends `${webhookBaseUrl}/<id>/<path>`. */
	webhookBaseUrl?: string;
	webhookTestBaseUrl?: string;
	credentialsHelper?: ICredentialsHelper;
}

function notInHarness(what: string) {
	return async () => {
		throw new UnexpectedError(`${what} is not available in the engine harness`);
	};
}

/** Everything WorkflowExecute and the node contexts read from "additional data", for a test process. */
export function createAdditionalData(
	options: AdditionalDataOptions,
): IWorkflowExecuteAdditionalData {
	return baseAdditionalData({
		credentialsHelper: options.credentialsHelper ?? new TestCredentialsHelper(options.credentials),
		hooks: options.hooks,
		executionId: options.executionId,
		unavailable: notInHarness,
		webhookBaseUrl: options.webhookBaseUrl,
		webhookTestBaseUrl: options.webhookTestBaseUrl,
	});
}

export const CREDENTIAL_REFERENCE = { id: 'test-credential', name: 'Booking Service account' };

/** A Booking Service node with the test credential attached; `settings` takes node settings such as retryOnFail. */
export function bookingServiceNode(
	name: string,
	parameters: Record<string, unknown>,
	settings: Partial<INode> = {},
): INode {
	return {
		id: randomUUID(),
		name,
		type: BOOKING_SERVICE_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: parameters as INodeParameters,
		credentials: { [BOOKING_SERVICE_CREDENTIAL_TYPE]: CREDENTIAL_REFERENCE },
		...settings,
	};
}

export interface RunWorkflowOptions {
	/** Nodes after the start node. */
	nodes: INode[];
	/** Defaults to a straight line: Start → nodes[0] → nodes[1] → … */
	connections?: IConnections;
	/** Items the start node emits; one empty item by default. */
	startItems?: Array<Record<string, unknown>>;
	credentials: Record<string, ICredentialDataDecryptedObject>;
	executionId?: string;
	/** The workflow's time zone (Settings → Timezone); UTC by default so tests do not depend on the machine. */
	timezone?: string;
	nodeTypes?: INodeTypes;
}

export interface WorkflowRunResult {
	run: IRun;
	/** The first output of each node that ran (its last run), by node name. */
	items: Record<string, INodeExecutionData[]>;
	/** Every main output of each node that ran (its last run), by node name: [1] is the error output, if any. */
	outputs: Record<string, INodeExecutionData[][]>;
	/** The execution's error if the workflow failed; a plain object by now, so assert on name / message / httpCode. */
	error:
		| (IDataObject & {
				message: string;
				name?: string;
				httpCode?: string | null;
				description?: string;
		  })
		| undefined;
	executionId: string;
}

export const START_NODE_NAME = 'Start';

function linearConnections(nodeNames: string[]): IConnections {
	const connections: IConnections = {};
	for (let index = 0; index < nodeNames.length - 1; index++) {
		connections[nodeNames[index]] = {
			main: [[{ node: nodeNames[index + 1], type: 'main', index: 0 }]],
		};
	}
	return connections;
}

export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRunResult> {
	const startNode: INode = {
		id: randomUUID(),
		name: START_NODE_NAME,
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const nodes = [startNode, ...options.nodes];
	const settings: IWorkflowSettings = { timezone: options.timezone ?? 'UTC', executionOrder: 'v1' };
	const workflow = new Workflow({
		id: 'engine-test',
		name: 'Engine test',
		nodes,
		connections: options.connections ?? linearConnections(nodes.map((node) => node.name)),
		active: false,
		nodeTypes: options.nodeTypes ?? createNodeTypes(),
		settings,
	});

	const executionId = options.executionId ?? randomUUID();
	const hooks = new ExecutionLifecycleHooks('manual', executionId, {
		id: workflow.id,
		name: workflow.name,
		active: false,
		isArchived: false,
		nodes,
		connections: workflow.connectionsBySourceNode,
		settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});

	const additionalData = createAdditionalData({
		credentials: options.credentials,
		hooks,
		executionId,
	});
	const startItems = (options.startItems ?? [{}]).map((json) => ({ json: json as IDataObject }));
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: startNode, data: { main: [startItems] }, source: null }],
		},
	});

	const execution = new WorkflowExecute(additionalData, 'manual', runExecutionData);
	await execution.processRunExecutionData(workflow);
	const run = await finished;

	const items: Record<string, INodeExecutionData[]> = {};
	const outputs: Record<string, INodeExecutionData[][]> = {};
	for (const [nodeName, taskData] of Object.entries(run.data.resultData.runData)) {
		const main = taskData.at(-1)?.data?.main ?? [];
		outputs[nodeName] = main.map((output) => output ?? []);
		if (main[0]) items[nodeName] = main[0];
	}
	return {
		run,
		items,
		outputs,
		error: run.data.resultData.error as WorkflowRunResult['error'],
		executionId,
	};
}

/**
 * The context n8n gives a node's listSearch / loadOptions methods, for one node of a throwaway workflow, so those
 * methods run through n8n's own helpers and credential handling.
 */
export async function createLoadOptionsContext(
	node: INode,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): Promise<import('n8n-workflow').ILoadOptionsFunctions> {
	const { LoadOptionsContext } = await import('n8n-core');
	const workflow = new Workflow({
		id: 'load-options-test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: createNodeTypes(),
		settings: { timezone: 'UTC' },
	});
	return new LoadOptionsContext(
		workflow,
		node,
		createAdditionalData({ credentials }),
		'parameters',
	);
}
