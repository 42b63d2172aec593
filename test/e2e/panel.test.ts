// What the editor panel shows, as a real n8n serves it to the editor: the node descriptions it renders
// (/types/nodes.json) and the lists it asks the package for (the editor's own resource-locator route).
import type { INodeTypeDescription } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { n8n, TRIGGER_NODE } from './n8n.ts';

const client = n8n();

async function nodeTypes(): Promise<INodeTypeDescription[]> {
	const response = await fetch(`${client.baseUrl}/types/nodes.json`, { headers: { cookie: client.cookie } });
	return (await response.json()) as INodeTypeDescription[];
}

describe('the editor panel', () => {
	it("the webhook trigger's notice says what a user needs in two sentences, without the sandbox's instructions", async () => {
		const trigger = (await nodeTypes()).find((type) => type.name === TRIGGER_NODE)!;
		const notices = trigger.properties.filter((property) => property.type === 'notice');
		expect(notices).toHaveLength(1);
		const text = notices[0].displayName;
		expect(text).toMatch(/public https address/);
		expect(text).toMatch(/WEBHOOK_URL/);
		expect(text).toMatch(/Polling Trigger/);
		expect(text).toMatch(/"Read and write"/);
		expect(text).not.toMatch(/npm run dev|simulator|Control URL|press Enter|127\.0\.0\.1|Test URL/);
		// Two lines in the panel at its default width (measured: about 58 characters a line).
		expect(text.split(/(?<=\.) /)).toHaveLength(2);
		expect(text.length).toBeLessThanOrEqual(2 * 60);
	});
});
