// Red-team round 27, the finding that needs a real n8n: what "publish again" does after a key rotation on n8n 2.41.1,
// whose workflow publication service is on by default (@n8n/config WorkflowsConfig.useWorkflowPublicationService =
// true). Run: real-n8n npx vitest run --config test/e2e/vitest.config.ts test/e2e/trigger-redteam-27.test.ts
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkflowInput, WorkflowNode } from '../n8n/client.ts';
import { N8N_HARNESS } from '../n8n/install.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE, n8n, TRIGGER_NODE } from './n8n.ts';

const client = n8n();
const TRIGGER = 'Booking Service Trigger';
let simulator: Simulator;
let credential: { id: string; name: string };
let workflowId = '';

beforeAll(async () => {
	simulator = await startSimulator({ allowInsecureWebhookTargets: true });
	credential = await client.createCredential({
		name: 'Booking Service (red team 27)',
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
	});
});

afterAll(async () => {
	if (workflowId) {
		await client.deactivate(workflowId).catch(() => undefined);
		await client.deleteWorkflow(workflowId).catch(() => undefined);
	}
	if (credential) await client.api('DELETE', `/credentials/${credential.id}`).catch(() => undefined);
	await simulator?.close();
});

function workflowBody(noOpX: number): WorkflowInput {
	return {
		name: 'red team 27: publish after a rotation',
		nodes: [
			{
				name: TRIGGER,
				type: TRIGGER_NODE,
				typeVersion: 1.1,
				webhookId,
				position: [0, 0],
				parameters: { events: ['*'], options: {} },
				credentials: { [CREDENTIAL_TYPE]: credential },
			},
			{ name: 'No Operation', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [noOpX, 0], parameters: {} },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}
const webhookId = randomUUID();

// The 2.41 line only: 1.x and 2.16 publish through ActiveWorkflowManager (remove, then add), which calls the hooks.
describe.runIf(N8N_HARNESS.publishApi)('red team 27 (real n8n 2.41)', () => {
	// Sequence (n8n 2.41.1, default settings): a published workflow's credential gets a new API key of the same account
	// and the old key is revoked; the trigger keeps its subscription and checks each delivery against the service.
	// The docs' remedy: "The next time you publish the workflow, the node replaces the subscription with one whose
	// secret is sealed under the new key". The user changes something in the workflow and publishes. 2.41.1's
	// publication service re-registers only trigger nodes whose registration changed (publication/trigger-diff.js
	// compares name, type, typeVersion, webhookId, credentials {id, name} and parameters): the trigger is "equal", so
	// neither delete nor create is called. The old subscription stays, deliveries stay checked indefinitely, and the
	// known limits (R19-8, 16, 19) that "only apply until the next publish after a rotation" apply with no end; the
	// output keeps lacking previous times and the envelope. Only unpublish + publish (or a change to the trigger node)
	// replaces it.
	// Breaks: docs/webhook-trigger.md "Rotating the API key" and docs/webhook-trigger-security.md ("until the next
	// publish (which makes a new subscription, sealed under the new key)", "only applies until the next publish after
	// a rotation").
	it.fails('FINDING R27-8 (medium): on n8n 2.41.1, publishing again after a key rotation keeps the old subscription (no hook is called)', async () => {
		const created = await client.createWorkflow(workflowBody(240));
		workflowId = created.id;
		await client.activate(workflowId);
		const [old] = simulator.control.webhooks();
		expect(old).toBeDefined();

		const { key: newKey } = simulator.control.createKey('readWrite');
		await client.rest('PATCH', `/credentials/${credential.id}`, {
			name: credential.name,
			type: CREDENTIAL_TYPE,
			data: { apiKey: newKey, baseUrl: simulator.baseUrl },
		});
		simulator.control.revokeKey(simulator.apiKeys.readWrite);

		await publishAgainWithAChangeElsewhere(workflowId, workflowBody(240));

		expect(simulator.control.webhooks().map((subscription) => subscription.id)).not.toContain(old.id);
	}, 120_000);

	// What does replace it (held; uses the state the finding left): unpublish, then publish.
	it('held: unpublishing and publishing again replaces the subscription after the rotation', async () => {
		const [old] = simulator.control.webhooks();
		await client.deactivate(workflowId);
		await client.activate(workflowId);
		const ids = simulator.control.webhooks().map((subscription) => subscription.id);
		expect(ids).toHaveLength(1);
		expect(ids).not.toContain(old.id);
	}, 120_000);

	// Sequence (n8n 2.41.1, default settings; the same cause as R27-8): the credential of a published workflow is edited
	// in place to a key of *another account* (another Base URL here: a second simulator), and the workflow is published
	// again. The trigger node's registration is unchanged (its credential is still {id, name}), so 2.41.1 calls no hook:
	// no subscription is made in the new account, nothing is logged, and the old account's deliveries are checked with
	// the new key (404) and refused. Every booking of the new account is lost until the workflow is unpublished and
	// published again.
	// Breaks: docs "Credential switched to another account" (the old subscription is left and named in n8n's log; the
	// trigger subscribes in the new account); "every event … runs".
	it.fails('FINDING R27-10 (high): on n8n 2.41.1, a credential switched to another account and published again never subscribes there', async () => {
		const other = await startSimulator({ allowInsecureWebhookTargets: true, seed: 2 });
		let otherCredentialId = '';
		try {
			const { key } = simulator.control.createKey('readWrite'); // the first test revoked the seeded key
			const otherCredential = await client.createCredential({
				name: 'Booking Service (red team 27, account switch)',
				type: CREDENTIAL_TYPE,
				data: { apiKey: key, baseUrl: simulator.baseUrl },
			});
			otherCredentialId = otherCredential.id;
			const body = { ...workflowBody(240), name: 'red team 27: account switch' };
			body.nodes[0] = { ...body.nodes[0], webhookId: randomUUID(), credentials: { [CREDENTIAL_TYPE]: otherCredential } };
			const { id } = await client.createWorkflow(body);
			switchedWorkflowId = id;
			await client.activate(id);

			await client.rest('PATCH', `/credentials/${otherCredential.id}`, {
				name: otherCredential.name,
				type: CREDENTIAL_TYPE,
				data: { apiKey: other.apiKeys.readWrite, baseUrl: other.baseUrl },
			});
			await publishAgainWithAChangeElsewhere(id, body);

			expect(other.control.webhooks()).toHaveLength(1);
		} finally {
			if (switchedWorkflowId) {
				await client.deactivate(switchedWorkflowId).catch(() => undefined);
				await client.deleteWorkflow(switchedWorkflowId).catch(() => undefined);
			}
			if (otherCredentialId) await client.api('DELETE', `/credentials/${otherCredentialId}`).catch(() => undefined);
			await other.close();
		}
	}, 120_000);
});
let switchedWorkflowId = '';

/**
 * "Publish the workflow again", as a user does it in 2.41: a change elsewhere in the workflow (the No Operation node
 * moved; node ids kept, as the editor keeps them), then Publish; waits until the publication outbox made it live.
 */
async function publishAgainWithAChangeElsewhere(id: string, body: WorkflowInput): Promise<void> {
	const saved = await client.api<{ nodes: WorkflowNode[] }>('GET', `/workflows/${id}`);
	const nodes = saved.nodes.map((node): WorkflowNode => (node.name === 'No Operation' ? { ...node, position: [480, 0] } : node));
	await client.api('PUT', `/workflows/${id}`, { ...body, nodes });
	await client.activate(id);
	const { versionId } = await client.api<{ versionId: string }>('GET', `/workflows/${id}`);
	type Status = { status: string; liveVersionId: string | null; pendingVersionId: string | null };
	let status: Status | undefined;
	for (let attempt = 0; attempt < 150; attempt++) {
		status = await client.rest<Status>('GET', `/workflows/${id}/publication-status`);
		if (status.status === 'published' && status.liveVersionId === versionId && status.pendingVersionId === null) break;
		await sleep(200);
	}
	expect(status?.liveVersionId).toBe(versionId);
	await sleep(1_000); // a margin for anything the outbox does after marking the version live
}
