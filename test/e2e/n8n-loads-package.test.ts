// The package, installed into n8n as users install it, loads under its production names.
import { describe, expect, it } from 'vitest';
import { ACTION_NODE, CREDENTIAL_TYPE, n8n, TRIGGER_NODE } from './n8n.ts';

describe('n8n with n8n-nodes-booking-service installed', () => {
	it('lists both nodes and the credential type', async () => {
		const { nodes, credentials } = await n8n().listNodeTypes();
		expect(nodes).toContain(ACTION_NODE);
		expect(nodes).toContain(TRIGGER_NODE);
		expect(credentials).toContain(CREDENTIAL_TYPE);
	});

	it('runs a workflow through the webhook runner (n8n-nodes-base Set node)', async () => {
		const output = await n8n().runWorkflowViaWebhook(
			[
				{
					name: 'Set',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					parameters: {
						mode: 'manual',
						assignments: {
							assignments: [{ id: 'greeting', name: 'greeting', value: '={{ "hello " + $json.body.who }}', type: 'string' }],
						},
						options: {},
					},
				},
			],
			{},
			{ who: 'e2e' },
		);
		expect(output).toEqual([{ greeting: 'hello e2e' }]);
	});
});
