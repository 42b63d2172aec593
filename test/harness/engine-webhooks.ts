/**
 * A webhook trigger run as n8n runs it, for the shared engine (see engine-common.ts): the webhook n8n registers, the
 * trigger's checkExists / create / delete through n8n-core's HookContext, a request through its WebhookContext, and
 * n8n's rule for saving static data.
 */
import type * as N8nCore from 'n8n-core';
import type {
	INode,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { n8nCore, n8nWorkflow } from './engine-common.ts';

const { UnexpectedError } = n8nWorkflow;

/** What n8n registers for a webhook trigger's node: its first webhook, at `<webhookId>/<path>`. */
export function webhookDataOf(
	nodeType: INodeType,
	workflow: Workflow,
	node: Pick<INode, 'name' | 'webhookId'>,
	additionalData: IWorkflowExecuteAdditionalData,
	isTest: boolean,
): IWebhookData {
	const webhookDescription = nodeType.description.webhooks?.[0] as IWebhookDescription;
	return {
		httpMethod: 'POST',
		node: node.name,
		path: `${node.webhookId}/${webhookDescription.path}`,
		webhookDescription,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		isTest,
	};
}

/** Calls the trigger's checkExists / create / delete through n8n-core's HookContext, as n8n's WebhookService does. */
export async function runWebhookMethod(
	nodeType: INodeType,
	method: 'checkExists' | 'create' | 'delete',
	workflow: Workflow,
	webhookData: IWebhookData,
	modes: { mode: WorkflowExecuteMode; activation: WorkflowActivateMode },
	prepare?: (context: N8nCore.HookContext) => void,
): Promise<boolean | undefined> {
	const node = workflow.getNode(webhookData.node) as INode;
	const context = new n8nCore.HookContext(
		workflow,
		node,
		webhookData.workflowExecuteAdditionalData,
		modes.mode,
		modes.activation,
		webhookData,
	);
	prepare?.(context);
	const hook = nodeType.webhookMethods?.default?.[method];
	if (hook === undefined) throw new UnexpectedError(`the node has no ${method}`);
	return (await hook.call(context)) as boolean | undefined;
}

/**
 * The context n8n makes for one request to a webhook: the request carries its raw bytes as `rawBody` beside the
 * parsed `body` (empty when the bytes are not JSON; the node reads rawBody anyway), as n8n's body parser leaves it.
 * `request` is the Node.js request, or any object with its headers and method.
 */
export function webhookRequestContext(
	workflow: Workflow,
	webhookData: IWebhookData,
	mode: WorkflowExecuteMode,
	http: { request: object; rawBody: Buffer; response: object },
): N8nCore.WebhookContext {
	let body: unknown = {};
	try {
		body = JSON.parse(http.rawBody.toString('utf8'));
	} catch {
		// n8n leaves a body it cannot parse empty.
	}
	const additionalData = {
		...webhookData.workflowExecuteAdditionalData,
		httpRequest: Object.assign(http.request, { rawBody: http.rawBody, body, params: {}, query: {} }),
		httpResponse: http.response,
	} as IWorkflowExecuteAdditionalData;
	const node = workflow.getNode(webhookData.node) as INode;
	return new n8nCore.WebhookContext(workflow, node, additionalData, mode, webhookData, [], null);
}

/**
 * n8n saves a workflow's static data only when it changed (its `__dataChanged` flag), then clears the flag. Returns
 * the JSON text to store, or undefined when n8n would save nothing.
 */
export function staticDataToSave(workflow: Workflow): string | undefined {
	if (workflow.staticData.__dataChanged !== true) return undefined;
	const saved = JSON.stringify(workflow.staticData);
	workflow.staticData.__dataChanged = false;
	return saved;
}

export interface LogLine {
	level: string;
	message: string;
}

/** Points a node context's logger (n8n-core hands it the process-wide one) at `lines`, so tests can read it. */
export function recordLogs(context: object, lines: LogLine[]): void {
	const record = (level: string) => (message: string) => {
		lines.push({ level, message });
	};
	Object.defineProperty(context, 'logger', {
		value: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
	});
}
