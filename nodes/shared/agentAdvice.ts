// Next-step advice for a model. n8n hands an AI agent only a failed tool's error *message* (with On Error set to
// continue, the error item), so what a chatbot should do next ("ask the customer for their email again") travels
// beside the error and joins the message only when the node runs as a tool; a workflow's reader gets what to change.
import type { INode, NodeApiError, NodeOperationError } from 'n8n-workflow';

const ADVICE_KEY = 'agentAdvice';

export function adviseAgent<T extends NodeApiError | NodeOperationError>(error: T, advice: string): T {
	error.context[ADVICE_KEY] = advice;
	return error;
}

/** n8n runs a node used by an AI agent (or an MCP Server Trigger) as its `…Tool` variant (usableAsTool). */
export function runsAsAgentTool(node: INode): boolean {
	return node.type.endsWith('Tool');
}

/** The message a model reads: the error's own, then the advice (before the " [item n]" the checks end with). */
export function messageForAgent(error: NodeApiError | NodeOperationError): string {
	const advice = error.context[ADVICE_KEY];
	if (typeof advice !== 'string' || error.message.includes(advice)) return error.message;
	const item = / \[item \d+\]$/.exec(error.message)?.[0] ?? '';
	const text = error.message.slice(0, error.message.length - item.length);
	return `${text}${/[.!?]$/.test(text) ? '' : '.'} ${advice}${item}`;
}
