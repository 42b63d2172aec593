// The AI agent e2e test's plumbing: the example wired for a test run, the same tools behind an MCP Server Trigger,
// the chat webhook, and reading tool results the way the model receives them.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { parseDateTime } from '../../nodes/shared/time.ts';
import type { WorkflowInput, WorkflowNode } from '../n8n/client.ts';
import { latestToolResults, type ModelRequest } from './model-double.ts';

/** One day of Get Available Slots' "Local Times by Day" output. */
export interface DaySlots {
	date: string;
	weekday: string;
	times: string[];
}

/** Each listed slot as a Start: the day and the time joined with T, offset kept ("2026-03-02T09:00 UTC+01:00"). */
export const startsOf = (days: DaySlots[]) => days.flatMap(({ date, times }) => times.map((time) => `${date}T${time}`));

/** The instant such a Start names, read as the node reads it (Date.parse does not know "UTC+01:00"). */
export function instantOfStart(start: string): number {
	const instant = parseDateTime(start, 'UTC');
	if (instant === undefined) throw new Error(`not a Start the node accepts: ${start}`);
	return instant;
}

/** A tool result as the model got it: n8n sends the items' JSON as an array (one item here). */
export function toolResult(request: ModelRequest): Record<string, unknown> {
	const [text] = latestToolResults(request);
	const parsed = JSON.parse(text) as unknown;
	return (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown>;
}

/**
 * A tool's error as the model got it. The example sets each tool's On Error to continue, so the node answers an
 * error item (n8n 1.x would otherwise stop the whole chat on a failing tool) and the same shape reaches the model on
 * every n8n version.
 */
export function toolError(request: ModelRequest): { message: string; description?: string; httpCode?: string | null; code?: string } {
	const result = toolResult(request);
	expect(Object.keys(result)).toEqual(['error']);
	return result.error as { message: string };
}

/**
 * The example as `npm run dev` imports it, with its model (shipped disabled, for want of an account) enabled and wired
 * to the double, the chat reachable by URL, and the business in `zone`.
 */
export function agentWorkflow(
	workflow: WorkflowInput,
	openAi: { id: string; name: string },
	webhookUrl: string,
	zone: string,
): { workflow: WorkflowInput; chatUrl: string } {
	const webhookId = randomUUID();
	const nodes = workflow.nodes.map((node): WorkflowNode => {
		if (node.type.endsWith('.lmChatOpenAi')) return { ...node, disabled: false, credentials: { openAiApi: openAi } };
		if (node.type.endsWith('.chatTrigger')) {
			return { ...node, webhookId, parameters: { ...node.parameters, public: true, mode: 'webhook' } };
		}
		return node;
	});
	return {
		workflow: { ...workflow, name: `${workflow.name} (test)`, nodes, settings: { executionOrder: 'v1', timezone: zone } },
		chatUrl: `${webhookUrl}webhook/${webhookId}/chat`,
	};
}

/** The example's four tool nodes behind an MCP Server Trigger instead of the agent. */
export function mcpWorkflow(agent: WorkflowInput, webhookUrl: string, zone: string): { workflow: WorkflowInput; mcpUrl: string } {
	const path = `booking-${randomUUID()}`;
	const tools = agent.nodes.filter((node) => node.type.endsWith('.bookingServiceTool'));
	const trigger: WorkflowNode = {
		name: 'MCP Server Trigger',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { path, authentication: 'none' },
	};
	const toTrigger = { ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] };
	return {
		workflow: {
			name: 'Booking Service tools over MCP (test)',
			nodes: [trigger, ...tools],
			// Tools connect to the trigger as ai_tool, which the harness's Connections type (main only) does not name.
			connections: Object.fromEntries(tools.map((tool) => [tool.name, toTrigger])) as never,
			settings: { executionOrder: 'v1', timezone: zone },
		},
		mcpUrl: `${webhookUrl}mcp/${path}`,
	};
}

/** Sends one message as the Chat Trigger's embedded-chat webhook receives it (a just-published one may 404 briefly). */
export async function postChat(chatUrl: string, sessionId: string, chatInput: string): Promise<{ status: number; text: string }> {
	const deadline = Date.now() + 15_000;
	for (;;) {
		const response = await fetch(chatUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ action: 'sendMessage', sessionId, chatInput }),
			signal: AbortSignal.timeout(90_000),
		});
		const text = await response.text();
		if (response.status !== 404 || Date.now() > deadline) return { status: response.status, text };
		await sleep(100);
	}
}
