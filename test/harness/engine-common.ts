/**
 * The engine that both the test harness (test/harness/engine.ts and trigger.ts: vitest, our nodes from their
 * TypeScript sources) and the bench (test/bench/engine.ts: plain Node, the built nodes in dist/) run workflows on:
 * a node-type registry, "additional data" and one execution by n8n-core's WorkflowExecute. Beside it,
 * engine-credentials.ts (the credentials helper) and engine-webhooks.ts (a webhook trigger's contexts). Each caller
 * hands in the node and credential types it loaded; these files load nothing from nodes/ or credentials/.
 *
 * Loadable by both, hence `.ts` import paths, erasable syntax only, and n8n-workflow and n8n-core *required*
 * (CommonJS): n8n-core requires n8n-workflow's CJS build, and an ESM copy beside it would fail its `instanceof`
 * checks. Under vitest every `import … from 'n8n-workflow'` is mapped to that same CJS file (test/vitest.config.ts).
 * n8n-core reads N8N_USER_FOLDER when first loaded, so a process imports its environment module first
 * (test/harness/n8n-environment.ts or test/bench/n8n-environment.ts).
 */
import { createRequire } from 'node:module';
import type * as N8nCore from 'n8n-core';
import type * as N8nWorkflow from 'n8n-workflow';
import type {
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';

if (process.env.N8N_USER_FOLDER === undefined) {
	throw new Error('import the n8n-environment module first: without N8N_USER_FOLDER, n8n-core writes into ~/.n8n');
}
const requireHere = createRequire(import.meta.url);
export const n8nWorkflow = requireHere('n8n-workflow') as typeof N8nWorkflow;
export const n8nCore = requireHere('n8n-core') as typeof N8nCore;
const { NodeHelpers, UnexpectedError, createRunExecutionData } = n8nWorkflow;

export type NodeTypeMap = Record<string, INodeType | IVersionedNodeType>;

/** The node types an engine may run, looked up by type name (and version, for versioned nodes). */
export function nodeTypeRegistry(types: NodeTypeMap): INodeTypes {
	const lookUp = (name: string) => {
		const type = types[name];
		if (type === undefined) throw new UnexpectedError(`Unknown node type "${name}" outside n8n's node loader`);
		return type;
	};
	return {
		getByName: lookUp,
		getByNameAndVersion: (name, version) => NodeHelpers.getVersionedNodeType(lookUp(name), version),
		getKnownTypes: () => ({}),
	};
}

export interface AdditionalDataParts {
	credentialsHelper: N8nWorkflow.ICredentialsHelper;
	hooks?: N8nCore.ExecutionLifecycleHooks;
	executionId?: string;
	/** Where n8n says its webhooks live; the trigger's create() sends `${webhookBaseUrl}/<id>/<path>`. */
	webhookBaseUrl?: string;
	webhookTestBaseUrl?: string;
}

const N8N_ORIGIN = 'http://127.0.0.1:5678';

function unavailable(what: string) {
	return async () => {
		throw new UnexpectedError(`${what} is not available outside n8n's server`);
	};
}

/** Everything WorkflowExecute and the node contexts read from "additional data", for a test or bench process. */
export function createAdditionalData(parts: AdditionalDataParts): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: parts.credentialsHelper,
		hooks: parts.hooks,
		executionId: parts.executionId,
		executeWorkflow: unavailable('executeWorkflow'),
		startRunnerTask: unavailable('startRunnerTask'),
		// Only read when an expression uses $secrets.
		externalSecretsProxy: {
			hasProvider: () => false,
			hasSecret: () => false,
			getSecret: () => undefined,
			listSecrets: () => [],
		},
		getRunExecutionData: unavailable('getRunExecutionData'),
		getRuntimeCredential: unavailable('getRuntimeCredential'),
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		restApiUrl: `${N8N_ORIGIN}/rest`,
		instanceBaseUrl: `${N8N_ORIGIN}/`,
		formBaseUrl: `${N8N_ORIGIN}/form`,
		formWaitingBaseUrl: `${N8N_ORIGIN}/form-waiting`,
		formTestBaseUrl: `${N8N_ORIGIN}/form-test`,
		webhookBaseUrl: parts.webhookBaseUrl ?? `${N8N_ORIGIN}/webhook`,
		webhookWaitingBaseUrl: `${N8N_ORIGIN}/webhook-waiting`,
		webhookTestBaseUrl: parts.webhookTestBaseUrl ?? `${N8N_ORIGIN}/webhook-test`,
		mcpBaseUrl: `${N8N_ORIGIN}/mcp`,
		mcpTestBaseUrl: `${N8N_ORIGIN}/mcp-test`,
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface ExecutionOptions {
	/** 'manual' for a run from the editor; 'webhook' or 'trigger' for a production one. */
	mode: WorkflowExecuteMode;
	credentialsHelper: N8nWorkflow.ICredentialsHelper;
	/** The node the execution starts at and the items it is handed (a trigger's output, or a start node's input). */
	start: { node: INode; items: INodeExecutionData[] };
	executionId: string;
}

/** One execution of `workflow` by n8n-core's WorkflowExecute, resolved with the run when its hooks say it ended. */
export async function executeWorkflow(workflow: Workflow, options: ExecutionOptions): Promise<IRun> {
	const hooks = new n8nCore.ExecutionLifecycleHooks(options.mode, options.executionId, {
		id: workflow.id,
		name: workflow.name,
		active: workflow.active,
		isArchived: false,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
		settings: workflow.settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as never);
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});
	const additionalData = createAdditionalData({
		credentialsHelper: options.credentialsHelper,
		hooks,
		executionId: options.executionId,
	});
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: options.start.node, data: { main: [options.start.items] }, source: null }],
		},
	});
	await new n8nCore.WorkflowExecute(additionalData, options.mode, runExecutionData).processRunExecutionData(workflow);
	return await finished;
}
