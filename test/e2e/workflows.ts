// The workflow every trigger end-to-end file makes, built in one place: a Booking Service trigger followed by a No
// Operation node, as a user would wire one, with the credential given.
import { randomUUID } from 'node:crypto';
import type { N8nClient, WorkflowInput } from '../n8n/client.ts';
import type { Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE, PACKAGE, TRIGGER_NODE } from './n8n.ts';

export const TRIGGER = 'Booking Service Trigger';
export const POLLING_TRIGGER = 'Booking Service Polling Trigger';

export interface TriggerWorkflowOptions {
	/** The node's parameters; default every event, no options (and every minute for the polling trigger). */
	parameters?: Record<string, unknown>;
	/** Default 1, what saved workflows hold; 1.1 is what a new webhook trigger gets. */
	typeVersion?: number;
	polling?: boolean;
}

/** `<trigger> → No Operation`, not yet saved. */
export function triggerWorkflow(
	name: string,
	credential: { id: string; name: string },
	options: TriggerWorkflowOptions = {},
): WorkflowInput {
	const webhookId = randomUUID();
	const trigger = options.polling
		? {
				name: POLLING_TRIGGER,
				type: `${PACKAGE}.bookingServicePollingTrigger`,
				parameters: options.parameters ?? { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['*'], options: {} },
			}
		: { name: TRIGGER, type: TRIGGER_NODE, webhookId, parameters: options.parameters ?? { events: ['*'], options: {} } };
	return {
		name,
		nodes: [
			{ ...trigger, typeVersion: options.typeVersion ?? 1, position: [0, 0], credentials: { [CREDENTIAL_TYPE]: credential } },
			{ name: 'No Operation', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { [trigger.name]: { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] } },
	};
}

/** The webhook trigger's id in its URLs: `webhook/<webhookId>/webhook`. */
export function webhookIdOf(workflow: WorkflowInput): string {
	return String(workflow.nodes[0].webhookId);
}

/** The first item the trigger emitted in an execution, as n8n stored it. */
export function triggerItemOf(execution: { data?: { resultData: { runData: Record<string, unknown> } } }, node = TRIGGER) {
	const runs = execution.data?.resultData.runData[node] as Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }>> } }> | undefined;
	return runs?.[0]?.data?.main[0]?.[0]?.json;
}

/** A Booking Service credential in n8n for one of the simulator's keys (default: read and write). */
export async function simulatorCredential(
	client: Pick<N8nClient, 'createCredential'>,
	simulator: Simulator,
	name: string,
	apiKey = simulator.apiKeys.readWrite,
): Promise<{ id: string; name: string }> {
	return await client.createCredential({ name, type: CREDENTIAL_TYPE, data: { apiKey, baseUrl: simulator.baseUrl } });
}

/** A credential for the simulator and a published `<trigger> → No Operation` workflow using it. */
export async function publishedTriggerWorkflow(
	client: Pick<N8nClient, 'createCredential' | 'createWorkflow' | 'activate'>,
	simulator: Simulator,
	name: string,
): Promise<{ credential: { id: string; name: string }; workflowId: string }> {
	const credential = await simulatorCredential(client, simulator, `Booking Service (${name})`);
	const { id } = await client.createWorkflow(triggerWorkflow(name, credential));
	await client.activate(id);
	return { credential, workflowId: id };
}

/** What a test file made in n8n, unpublished first (that deletes subscriptions at the simulator, still running). */
export async function removeFromN8n(
	client: Pick<N8nClient, 'deactivate' | 'deleteWorkflow' | 'api'>,
	made: { published: Iterable<string>; workflowIds: Iterable<string>; credential?: { id: string } },
): Promise<void> {
	for (const id of made.published) await client.deactivate(id).catch(() => undefined);
	for (const id of made.workflowIds) await client.deleteWorkflow(id).catch(() => undefined);
	if (made.credential) await client.api('DELETE', `/credentials/${made.credential.id}`);
}
