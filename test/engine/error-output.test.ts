/**
 * Where a failed item goes under each of n8n's On Error settings, with both branches wired: Stop Workflow fails the
 * run, "Continue (using regular output)" keeps error items in line with the others, and "Continue (using error
 * output)" sends every failed item — bad input caught before sending, or a refusal by the service — to the error
 * output and nothing failed to the success branch. One case per operation family, each with a good and a bad item.
 */
import type { INode, INodeExecutionData } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { START_NODE_TYPE, bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { createBookingParameters, credentialsFor, eventTypeId, freeSlots, useTestSimulator } from '../harness/fixtures.ts';
import type { Simulator } from '../simulator/index.ts';

const sim = useTestSimulator();

const MISSING_ID = 'ffffffffffffffffffffffff';

interface Case {
	name: string;
	parameters: Record<string, unknown>;
	/** Two input items: [0] succeeds, [1] fails. */
	items: (sim: Simulator) => Promise<Array<Record<string, unknown>>>;
	failure: { message: RegExp; httpCode?: string };
}

const eventTypeById = { __rl: true, mode: 'id', value: '={{ $json.eventTypeId }}' };
/** Create from the item: its event type, start and email; Jane Doe otherwise. */
const createFromItem = createBookingParameters('={{ $json.eventTypeId }}', '={{ $json.start }}', {
	bookerEmail: '={{ $json.email }}',
});

const CASES: Case[] = [
	{
		name: 'booking create: bad email (caught before sending)',
		parameters: createFromItem,
		items: async (sim) => {
			const [first] = await freeSlots(sim, 'intro-call');
			const id = eventTypeId(sim, 'intro-call');
			return [
				{ eventTypeId: id, start: first, email: 'one@example.com' },
				{ eventTypeId: id, start: first, email: 'not-an-address' },
			];
		},
		failure: { message: /^Booker Email must be an email address.*\[item 1\]$/ },
	},
	{
		name: 'booking create: 409 slot taken (refused by the service)',
		parameters: createFromItem,
		items: async (sim) => {
			const [first] = await freeSlots(sim, 'intro-call');
			const id = eventTypeId(sim, 'intro-call');
			return [
				{ eventTypeId: id, start: first, email: 'one@example.com' },
				{ eventTypeId: id, start: first, email: 'two@example.com' },
			];
		},
		failure: { message: /no longer free/, httpCode: '409' },
	},
	{
		name: 'booking get: 404',
		parameters: { resource: 'booking', operation: 'get', bookingId: '={{ $json.id }}' },
		items: async (sim) => [{ id: sim.control.bookings()[0].id }, { id: MISSING_ID }],
		failure: { message: /^Not found/, httpCode: '404' },
	},
	{
		name: 'booking cancel: 404',
		parameters: { resource: 'booking', operation: 'cancel', bookingId: '={{ $json.id }}' },
		items: async (sim) => [
			{ id: sim.control.bookings().find((booking) => booking.status === 'confirmed')!.id },
			{ id: MISSING_ID },
		],
		failure: { message: /^Not found/, httpCode: '404' },
	},
	{
		name: 'event type slots: a date that is not one',
		parameters: {
			resource: 'eventType',
			operation: 'getSlots',
			eventType: eventTypeById,
			from: '={{ $json.from }}',
			to: '2026-03-06',
		},
		items: async (sim) => [
			{ eventTypeId: eventTypeId(sim, 'intro-call'), from: '2026-03-03' },
			{ eventTypeId: eventTypeId(sim, 'intro-call'), from: '2026-02-30' },
		],
		failure: { message: /^From must be a date.*\[item 1\]$/ },
	},
	{
		name: 'invite create: unknown event type (404)',
		parameters: { resource: 'invite', operation: 'create', eventType: eventTypeById },
		items: async (sim) => [{ eventTypeId: eventTypeId(sim, 'intro-call') }, { eventTypeId: MISSING_ID }],
		failure: { message: /^Not found/, httpCode: '404' },
	},
	{
		name: 'webhook subscription delete: 404',
		parameters: {
			resource: 'webhookSubscription',
			operation: 'delete',
			webhookSubscriptionId: '={{ $json.id }}',
		},
		items: async (sim) => {
			sim.control.setInsecureWebhookTargets({ allowed: true });
			const created = await fetch(`${sim.baseUrl}/webhooks`, {
				method: 'POST',
				headers: {
					Authorization: `Bearer ${sim.apiKeys.readWrite}`,
					'Content-Type': 'application/json',
				},
				body: JSON.stringify({ url: 'http://127.0.0.1:9/in', events: ['*'] }),
			});
			const { id } = (await created.json()) as { id: string };
			return [{ id }, { id: MISSING_ID }];
		},
		failure: { message: /not found/i, httpCode: '404' },
	},
];

/** Start → Action; the action's success output → "Succeeded", its error output (when it has one) → "Failed". */
function wiredWorkflow(action: INode) {
	const receiver = (name: string): INode => ({
		id: name,
		name,
		type: START_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	});
	return {
		nodes: [action, receiver('Succeeded'), receiver('Failed')],
		connections: {
			Start: { main: [[{ node: action.name, type: 'main' as const, index: 0 }]] },
			[action.name]: {
				main: [
					[{ node: 'Succeeded', type: 'main' as const, index: 0 }],
					[{ node: 'Failed', type: 'main' as const, index: 0 }],
				],
			},
		},
	};
}

function expectFailure(item: INodeExecutionData | undefined, failure: Case['failure']) {
	expect(item?.json.error).toEqual({
		message: expect.stringMatching(failure.message),
		description: expect.any(String),
		...(failure.httpCode ? { httpCode: failure.httpCode, code: expect.any(String) } : {}),
	});
}

describe.each(CASES)('$name', (testCase) => {
	async function run(onError: INode['onError'] | undefined) {
		const startItems = await testCase.items(sim);
		const action = bookingServiceNode('Action', testCase.parameters, onError ? { onError } : {});
		const result = await runWorkflow({
			...wiredWorkflow(action),
			startItems,
			credentials: credentialsFor(sim),
		});
		return { result, startItems };
	}

	it('Continue (using error output): the failed item leaves on the error output only, with its input', async () => {
		const { result, startItems } = await run('continueErrorOutput');

		expect(result.error).toBeUndefined();
		const [success, failed] = result.outputs.Action;
		expect(success).toHaveLength(1);
		expect(success[0].json.error).toBeUndefined();
		expect(success[0].pairedItem).toEqual({ item: 0 });
		expect(failed).toHaveLength(1);
		expect(failed[0].pairedItem).toEqual({ item: 1 });
		expectFailure(failed[0], testCase.failure);
		// n8n merges the paired input item into an error item: the user sees which input failed.
		expect(failed[0].json).toMatchObject(startItems[1]);
		// Both branches ran with exactly their items.
		expect(result.items.Succeeded).toHaveLength(1);
		expect(result.items.Failed).toHaveLength(1);
		expect(result.items.Succeeded[0].json.error).toBeUndefined();
	});

	it('Continue (using regular output): both items in order on the one output, paired', async () => {
		const { result } = await run('continueRegularOutput');

		expect(result.error).toBeUndefined();
		const [output] = result.outputs.Action;
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(output[0].json.error).toBeUndefined();
		expectFailure(output[1], testCase.failure);
		expect(result.items.Failed).toBeUndefined();
	});

	it('Stop Workflow: the run fails with the message, naming the item', async () => {
		const { result } = await run(undefined);

		expect(result.error?.message).toEqual(expect.stringMatching(testCase.failure.message));
		if (testCase.failure.httpCode) expect(result.error?.httpCode).toBe(testCase.failure.httpCode);
		expect(result.items.Succeeded).toBeUndefined();
		expect(result.items.Failed).toBeUndefined();
	});
});
