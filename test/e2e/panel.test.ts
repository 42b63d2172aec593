// What the editor panel shows, as a real n8n serves it to the editor: the node descriptions it renders
// (/types/nodes.json) and the lists it asks the package for (the editor's own resource-locator route).
import type { INodeTypeDescription } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minuteInZone } from '../harness/fixtures.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { ACTION_NODE, CREDENTIAL_TYPE, n8n, TRIGGER_NODE } from './n8n.ts';
import { introCallSlots, service } from './service.ts';

const client = n8n();
let simulator: Simulator;
let credential: { id: string; name: string };

beforeAll(async () => {
	simulator = await startSimulator();
	const created = await client.createCredential({
		name: 'Booking Service (panel test)',
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
	});
	credential = { id: created.id, name: created.name };
});

afterAll(async () => {
	if (credential) await client.api('DELETE', `/credentials/${credential.id}`);
	await simulator?.close();
});

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

	it("the booking list names the zone of each start: the host's, not n8n's default (a list gets no workflow settings)", async () => {
		const [start] = await introCallSlots(simulator);
		const email = `panel.${Date.now()}@example.com`;
		await service(simulator, 'POST', '/bookings', {
			eventTypeId: simulator.control.eventType('intro-call').id,
			start,
			booker: { name: 'Panel Test', email, timezone: 'Europe/London' },
		});
		const listed = async (options: Record<string, unknown>) => {
			// What the editor sends when the Booking field's list opens and the user types an email.
			const { results } = await client.rest<{ results: Array<{ name: string }> }>(
				'POST',
				'/dynamic-node-parameters/resource-locator-results',
				{
					nodeTypeAndVersion: { name: ACTION_NODE, version: 1 },
					path: 'parameters.bookingId',
					methodName: 'searchBookings',
					currentNodeParameters: {
						resource: 'booking',
						operation: 'get',
						bookingId: { __rl: true, mode: 'list', value: '' },
						options,
					},
					credentials: { [CREDENTIAL_TYPE]: credential },
					filter: email,
				},
			);
			return results.map((result) => result.name);
		};
		const local = (timeZone: string) => minuteInZone(start, timeZone);

		expect((await service<{ timezone: string }>(simulator, 'GET', '/me')).timezone).toBe('Asia/Tokyo');
		expect(await listed({})).toEqual([`Panel Test · Intro call · ${local('Asia/Tokyo')} Tokyo · Confirmed`]);
		expect(await listed({ timeZone: 'America/Los_Angeles' })).toEqual([
			`Panel Test · Intro call · ${local('America/Los_Angeles')} Los Angeles · Confirmed`,
		]);
	});

	it("the node panel's \"Booking Service\" entry (n8n merges the action node and its trigger, showing the trigger's description) says what the action node does", async () => {
		const types = await nodeTypes();
		const action = types.find((type) => type.name === ACTION_NODE)!;
		// n8n's editor (generateMergedNodesAndActions): a trigger whose name without "Trigger" is an action node's
		// lends that entry its description, in "What happens next?" as well.
		const lending = types.filter((type) => type.group.includes('trigger') && type.name.replace('Trigger', '') === action.name);
		expect(lending.map((type) => type.name)).toEqual([TRIGGER_NODE]);
		expect(lending[0].description).toMatch(/^Create, list and cancel bookings, check free times, and start workflows/);
	});

	it("By ID names its field, and Create's Start hint names One Item per Slot's field", async () => {
		const action = (await nodeTypes()).find((type) => type.name === ACTION_NODE)!;
		const create = (name: string) =>
			action.properties.find((property) => property.name === name && property.displayOptions?.show?.operation?.includes('create') && property.displayOptions?.show?.resource?.includes('booking'))!;
		const byId = create('eventType').modes!.find((mode) => mode.name === 'id')!;
		expect(byId.validation).toEqual([
			expect.objectContaining({ properties: expect.objectContaining({ errorMessage: expect.stringMatching(/^Event Type must be an ID .*not a name or slug: choose From List/) }) }),
		]);
		expect(create('start').hint).toMatch(/\{\{ \$json\.slot \}\} after One Item per Slot/);
	});
});
