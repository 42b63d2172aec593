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
 * Exported for the trigger's tests too: createNodeTypes, TestCredentialsHelper, createAdditionalData. What this file
 * shares with the bench (which runs the built nodes instead) is in engine-common.ts and beside it.
 */
import './n8n-environment';

import { randomUUID } from 'node:crypto';

import type {
	ICredentialDataDecryptedObject,
	ICredentialsHelper,
	ICredentialType,
	IDataObject,
	IConnections,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeTypes,
	IRun,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials';
import { BookingService } from '../../nodes/BookingService/BookingService.node';
import type { AdditionalDataParts, NodeTypeMap } from './engine-common.ts';
import { createAdditionalData as additionalDataFrom, executeWorkflow, nodeTypeRegistry } from './engine-common.ts';
import { EngineCredentialsHelper } from './engine-credentials.ts';
import { START_NODE_TYPE, StartNode } from './start-node';

export { START_NODE_TYPE };
export type { NodeTypeMap };
export { resolveCredentialExpression } from './engine-credentials.ts';

/** The type name n8n gives the action node when the package is installed. */
export const BOOKING_SERVICE_NODE_TYPE = 'n8n-nodes-booking-service.bookingService';
export const BOOKING_SERVICE_CREDENTIAL_TYPE = 'bookingServiceApi';

/** The node types the engine may run: the action node and the start node, plus any given (e.g. the trigger). */
export function createNodeTypes(extra: NodeTypeMap = {}): INodeTypes {
	return nodeTypeRegistry({
		[BOOKING_SERVICE_NODE_TYPE]: new BookingService(),
		[START_NODE_TYPE]: new StartNode(),
		...extra,
	});
}

const DEFAULT_CREDENTIAL_TYPES: Record<string, ICredentialType> = {
	[BOOKING_SERVICE_CREDENTIAL_TYPE]: new BookingServiceApi(),
};

/** The engine's credentials helper with the Booking Service credential type, loaded from source. */
export class TestCredentialsHelper extends EngineCredentialsHelper {
	constructor(
		credentialsByType: Record<string, ICredentialDataDecryptedObject>,
		credentialTypes: Record<string, ICredentialType> = DEFAULT_CREDENTIAL_TYPES,
	) {
		super(credentialsByType, credentialTypes);
	}
}

export interface AdditionalDataOptions extends Omit<AdditionalDataParts, 'credentialsHelper'> {
	credentials: Record<string, ICredentialDataDecryptedObject>;
	credentialsHelper?: ICredentialsHelper;
}

/** Everything WorkflowExecute and the node contexts read from "additional data", for a test process. */
export function createAdditionalData(
	options: AdditionalDataOptions,
): IWorkflowExecuteAdditionalData {
	return additionalDataFrom({
		...options,
		credentialsHelper: options.credentialsHelper ?? new TestCredentialsHelper(options.credentials),
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
	const startItems = (options.startItems ?? [{}]).map((json) => ({ json: json as IDataObject }));
	const run = await executeWorkflow(workflow, {
		mode: 'manual',
		credentialsHelper: new TestCredentialsHelper(options.credentials),
		start: { node: startNode, items: startItems },
		executionId,
	});

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
