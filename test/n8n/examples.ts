// The example workflows (examples/*.json): as a user imports them (the examples e2e test), and made ready for one n8n
// (`npm run dev` and the AI agent test). The files carry no credential and no event type, since those differ per
// account: a user chooses the credential, and makes the one pick a sticky note on the canvas names.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowInput, WorkflowNode } from './client.ts';
import { REPO_ROOT } from './install.ts';

export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
const PACKAGE_NODE_PREFIX = 'n8n-nodes-booking-service.';
const CREDENTIAL_TYPE = 'bookingServiceApi';

export interface ExampleFile {
	file: string;
	workflow: WorkflowInput & { id?: string };
}

export function readExamples(): ExampleFile[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => ({ file, workflow: JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) }));
}

export interface ExampleContext {
	credential: { id: string; name: string };
	/** The event type for nodes whose Event Type is left empty in the file. */
	eventType: { id: string; name: string };
}

/** The file as n8n's editor imports it: a new workflow (no id) with the file's nodes, connections and settings. */
export function asImported(workflow: WorkflowInput): WorkflowInput {
	return structuredClone({ name: workflow.name, nodes: workflow.nodes, connections: workflow.connections, settings: workflow.settings });
}

/** The one step every example asks of a user: the Booking Service credential, in every node that asks for it. */
export function withCredentialChosen(workflow: WorkflowInput, credential: { id: string; name: string }): WorkflowInput {
	const nodes = workflow.nodes.map((node): WorkflowNode =>
		node.type.startsWith(PACKAGE_NODE_PREFIX)
			? { ...node, credentials: { ...node.credentials, [CREDENTIAL_TYPE]: credential } }
			: node,
	);
	return { ...workflow, nodes };
}

/** For `npm run dev` and the AI agent test: the credential chosen and every empty Event Type set to the given one. */
export function prepareExample(workflow: WorkflowInput, context: ExampleContext): WorkflowInput {
	const nodes = workflow.nodes.map((node): WorkflowNode => {
		if (!node.type.startsWith(PACKAGE_NODE_PREFIX)) return node;
		const parameters = { ...node.parameters };
		const eventType = parameters.eventType as { __rl?: boolean; value?: string } | undefined;
		if (eventType?.__rl && !eventType.value) {
			parameters.eventType = {
				__rl: true,
				mode: 'list',
				value: context.eventType.id,
				cachedResultName: context.eventType.name,
			};
		}
		return { ...node, parameters, credentials: { ...node.credentials, [CREDENTIAL_TYPE]: context.credential } };
	});
	return { name: workflow.name, nodes, connections: workflow.connections, settings: workflow.settings };
}

/** The first active event type of the account behind `apiKey` (the simulator's seeded "intro call"). */
export async function firstEventType(baseUrl: string, apiKey: string): Promise<{ id: string; name: string }> {
	const response = await fetch(`${baseUrl}/event-types?limit=1`, {
		headers: { authorization: `Bearer ${apiKey}` },
		signal: AbortSignal.timeout(10_000),
	});
	if (!response.ok) throw new Error(`GET ${baseUrl}/event-types answered ${response.status}`);
	const { items } = (await response.json()) as { items: Array<{ id: string; name: string }> };
	if (!items.length) throw new Error('the account has no active event type');
	return { id: items[0].id, name: items[0].name };
}
