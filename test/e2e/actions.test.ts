// Every operation of the action node, run in a workflow by a real n8n (through the webhook runner), against the
// simulator: each output is compared with what the simulator holds afterwards. The parameters are those of the
// engine tests (test/engine/); here they travel through n8n's own parameter handling, credential store and HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatInZone } from '../../nodes/shared/time.ts';
import type { Execution, WorkflowNode } from '../n8n/client.ts';
import { startSimulator, type Booking, type Simulator } from '../simulator/index.ts';
import { ACTION_NODE, CREDENTIAL_TYPE, n8n } from './n8n.ts';
import { service } from './service.ts';

const client = n8n();
let simulator: Simulator;
let credential: { id: string; name: string };

beforeAll(async () => {
	simulator = await startSimulator({ allowInsecureWebhookTargets: true });
	credential = await client.createCredential({
		name: 'Booking Service (actions test)',
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
	});
});

afterAll(async () => {
	if (credential) await client.api('DELETE', `/credentials/${credential.id}`);
	await simulator?.close();
});

beforeEach(() => {
	simulator.control.clearRequests();
});

function bookingServiceNode(name: string, parameters: Record<string, unknown>, settings = {}): WorkflowNode {
	return {
		name,
		type: ACTION_NODE,
		typeVersion: 1,
		parameters,
		credentials: { [CREDENTIAL_TYPE]: credential },
		...settings,
	};
}

/** Runs one Booking Service node in n8n; returns the JSON of the items it output. */
async function run(parameters: Record<string, unknown>): Promise<Array<Record<string, any>>> {
	return await client.runWorkflowViaWebhook([bookingServiceNode('Booking Service', parameters)], {});
}

/** Every booking the simulator holds, through its control interface over HTTP. */
async function heldBookings(): Promise<Booking[]> {
	const response = await fetch(`${simulator.controlUrl}/bookings`);
	return ((await response.json()) as { items: Booking[] }).items;
}

/** The /v1 requests of one method and route pattern since the last clear. */
function requestsTo(method: string, route: string) {
	return simulator.control.requests().filter((entry) => entry.method === method && entry.route === route);
}

const DAY_MS = 86_400_000;
/** n8n's default time zone, which workflows without their own setting use (the suite sets no GENERIC_TIMEZONE). */
const N8N_DEFAULT_ZONE = 'America/New_York';

/** A booking as the action node outputs it: the service's booking plus its start and end in the workflow's zone. */
function asOutput(booking: Booking, zone = N8N_DEFAULT_ZONE) {
	return {
		...booking,
		localStart: formatInZone(Date.parse(booking.start), zone),
		localEnd: formatInZone(Date.parse(booking.end), zone),
		localTimeZone: zone,
	};
}
const utcDay = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const utcSecond = (iso: string) => new Date(iso).toISOString().replace('.000Z', 'Z');
const introCall = () => simulator.control.eventType('intro-call');

/** Free intro-call starts from tomorrow on (UTC days), as the service offers them. */
async function freeIntroCallStarts(): Promise<string[]> {
	const from = utcDay(Date.now() + DAY_MS);
	const to = utcDay(Date.now() + 14 * DAY_MS);
	const { slots } = await service<{ slots: string[] }>(
		simulator,
		'GET',
		`/event-types/${introCall().id}/slots?from=${from}&to=${to}&timezone=UTC`,
	);
	if (slots.length < 2) throw new Error('the simulator offers fewer than two intro-call slots in two weeks');
	return slots.map(utcSecond);
}

describe('Account', () => {
	it('Get returns the account the key belongs to', async () => {
		const output = await run({ resource: 'account', operation: 'get' });

		expect(output).toEqual([await service(simulator, 'GET', '/me')]);
	});
});

describe('Event Type', () => {
	it('Get Many with Return All returns every active event type, in the app order', async () => {
		const output = await run({ resource: 'eventType', operation: 'getMany', returnAll: true });

		const active = simulator.control.eventTypes().filter((eventType) => eventType.active);
		expect(active.length).toBeGreaterThan(2);
		expect(output.map((eventType) => eventType.id)).toEqual(active.map((eventType) => eventType.id));
		expect(output[0]).toEqual(active[0]);
	});

	it('Get Many with a Limit returns the first ones and asks for no more', async () => {
		const output = await run({ resource: 'eventType', operation: 'getMany', returnAll: false, limit: 2 });

		const active = simulator.control.eventTypes().filter((eventType) => eventType.active);
		expect(output.map((eventType) => eventType.id)).toEqual(active.slice(0, 2).map((eventType) => eventType.id));
		expect(requestsTo('GET', '/event-types').map((request) => request.query.limit)).toEqual(['2']);
	});

	it('Get Available Slots returns the slots the service offers on those days', async () => {
		const from = utcDay(Date.now() + 2 * DAY_MS);
		const to = utcDay(Date.now() + 8 * DAY_MS);
		const output = await run({
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: introCall().id },
			from,
			to,
		});

		// Days of the workflow's time zone (n8n's default here): the service is asked for exactly those days.
		const offered = await service<{ slots: string[]; calendarBlocked: boolean }>(
			simulator,
			'GET',
			`/event-types/${introCall().id}/slots?from=${from}&to=${to}&timezone=${N8N_DEFAULT_ZONE}`,
		);
		expect(offered.slots.length).toBeGreaterThan(0);
		expect(output).toEqual([
			{
				eventTypeId: introCall().id,
				from,
				to,
				timeZone: N8N_DEFAULT_ZONE,
				calendarBlocked: offered.calendarBlocked,
				slotCount: offered.slots.length,
				slots: offered.slots.map(utcSecond),
				localSlots: offered.slots.map((slot) => formatInZone(Date.parse(slot), N8N_DEFAULT_ZONE)),
			},
		]);
	});
});

describe('Booking', () => {
	it('Get Many with filters returns exactly the bookings the simulator holds that match them', async () => {
		const statuses = ['confirmed', 'cancelled'];
		const eventTypeId = introCall().id;
		const output = await run({
			resource: 'booking',
			operation: 'getMany',
			returnAll: true,
			filters: { status: statuses, eventType: { __rl: true, mode: 'id', value: eventTypeId } },
		});

		const expected = (await heldBookings()).filter(
			(booking) => statuses.includes(booking.status) && booking.eventType.id === eventTypeId,
		);
		expect(expected.length).toBeGreaterThan(1);
		const ids = output.map((booking) => booking.id as string);
		expect(new Set(ids).size).toBe(ids.length);
		expect([...ids].sort()).toEqual(expected.map((booking) => booking.id).sort());
		expect(new Set(requestsTo('GET', '/bookings').map((request) => request.query.status))).toEqual(new Set(statuses));
	});

	it('Get Many filtered by email and start range returns exactly the matching bookings', async () => {
		const all = await heldBookings();
		const { email } = all.find((booking) => booking.status === 'confirmed')!.booker;
		const startFrom = new Date(Date.now() - 365 * DAY_MS).toISOString();
		const startTo = new Date(Date.now() + 365 * DAY_MS).toISOString();
		const output = await run({
			resource: 'booking',
			operation: 'getMany',
			returnAll: true,
			filters: { email, startFrom, startTo, status: ['confirmed'] },
		});

		const expected = all.filter(
			(booking) =>
				booking.status === 'confirmed' &&
				booking.booker.email.toLowerCase() === email.toLowerCase() &&
				booking.start >= startFrom &&
				booking.start <= startTo,
		);
		expect(expected.length).toBeGreaterThan(0);
		expect(output.map((booking) => booking.id).sort()).toEqual(expected.map((booking) => booking.id).sort());
	});

	it('Get returns the booking as the simulator holds it', async () => {
		const stored = (await heldBookings()).find((booking) => booking.status === 'confirmed')!;
		const output = await run({ resource: 'booking', operation: 'get', bookingId: stored.id });

		expect(output).toEqual([asOutput(stored)]);
	});

	it('Create books the slot: the simulator then holds exactly one new booking for that booker', async () => {
		const [start] = await freeIntroCallStarts();
		const email = `create.${Date.now()}@example.com`;
		const before = (await heldBookings()).length;
		const output = await run({
			resource: 'booking',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: introCall().id },
			start,
			bookerName: 'Jane Doe',
			bookerEmail: email,
			bookerTimeZone: 'Europe/Berlin',
		});

		const after = await heldBookings();
		expect(after).toHaveLength(before + 1);
		const ofBooker = after.filter((booking) => booking.booker.email === email);
		expect(ofBooker).toHaveLength(1);
		expect(output).toEqual(ofBooker.map((booking) => asOutput(booking)));
		expect(ofBooker[0]).toMatchObject({
			status: 'confirmed',
			eventType: { id: introCall().id },
			booker: { name: 'Jane Doe', email, timezone: 'Europe/Berlin' },
		});
		expect(utcSecond(ofBooker[0].start)).toBe(start);
		expect(requestsTo('POST', '/bookings')).toHaveLength(1);
	});

	it('Cancel cancels it on the simulator; cancelling again returns it unchanged', async () => {
		const [, start] = await freeIntroCallStarts();
		const booking = await service<Booking>(simulator, 'POST', '/bookings', {
			eventTypeId: introCall().id,
			start,
			booker: { name: 'Cancel Me', email: `cancel.${Date.now()}@example.com`, timezone: 'UTC' },
		});
		const cancel = () =>
			run({ resource: 'booking', operation: 'cancel', bookingId: booking.id, message: 'Sorry, something came up.' });

		const first = await cancel();
		const stored = (await heldBookings()).find((candidate) => candidate.id === booking.id);
		expect(stored).toMatchObject({
			status: 'cancelled',
			cancellation: { by: 'host', reason: 'Sorry, something came up.' },
		});
		expect(first).toEqual([asOutput(stored!)]);

		const again = await cancel();
		expect(again).toEqual(first);
		expect((await heldBookings()).find((candidate) => candidate.id === booking.id)).toEqual(stored);
		expect(requestsTo('POST', '/bookings/{id}/cancel').map((request) => request.status)).toEqual([200, 200]);
	});
});

describe('Invite', () => {
	it('Create makes a single-use link for an invite-only event type, which the simulator then holds', async () => {
		const phone = simulator.control.eventType('phone-consultation');
		const output = await run({
			resource: 'invite',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: phone.id },
			additionalFields: { name: 'Mei Chen', email: 'mei@example.com', expiresInDays: 3 },
		});

		expect(output).toHaveLength(1);
		expect(output[0]).toMatchObject({
			eventTypeId: phone.id,
			name: 'Mei Chen',
			email: 'mei@example.com',
			usedAt: null,
		});
		expect(output[0].url).toMatch(/^https:\/\//);
		const held = simulator.control.invites().filter((invite) => invite.id === output[0].id);
		expect(held).toEqual([{ ...output[0], url: null }]);
	});
});

describe('Webhook Subscription', () => {
	it('Create makes a subscription the simulator holds; Delete removes it', async () => {
		const url = `http://127.0.0.1:9/booking-events-${Date.now()}`;
		const created = await run({
			resource: 'webhookSubscription',
			operation: 'create',
			url,
			events: ['booking.created', 'booking.cancelled'],
			additionalFields: { description: 'CRM sync' },
		});

		expect(created).toHaveLength(1);
		expect(created[0]).toMatchObject({ url, description: 'CRM sync', status: 'active' });
		expect([...created[0].events].sort()).toEqual(['booking.cancelled', 'booking.created']);
		expect(created[0].secret).toEqual(expect.any(String));
		const held = simulator.control.webhooks().filter((webhook) => webhook.url === url);
		expect(held.map((webhook) => [webhook.id, webhook.secret])).toEqual([[created[0].id, created[0].secret]]);

		const deleted = await run({
			resource: 'webhookSubscription',
			operation: 'delete',
			webhookSubscriptionId: created[0].id,
		});

		expect(deleted).toEqual([{ deleted: true }]);
		expect(simulator.control.webhooks().filter((webhook) => webhook.id === created[0].id)).toEqual([]);
	});
});

/** The webhook's body.items → one item each (node "Items") → Create Booking for each (node "Book") with this On Error. */
function bookEachItem(onError: 'continueRegularOutput' | 'continueErrorOutput'): WorkflowNode[] {
	return [
		{
			name: 'Items',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'body.items', include: 'noOtherFields', options: {} },
		},
		bookingServiceNode(
			'Book',
			{
				resource: 'booking',
				operation: 'create',
				eventType: { __rl: true, mode: 'id', value: introCall().id },
				start: '={{ $json.start }}',
				bookerName: 'Jane Doe',
				bookerEmail: '={{ $json.email }}',
				bookerTimeZone: 'Europe/Berlin',
			},
			{ onError },
		),
	];
}

describe('The service rate limiting (429)', () => {
	it('a 429 with a short Retry-After is waited out: one booking, both attempts with the same Idempotency-Key', async () => {
		const [start] = await freeIntroCallStarts();
		const email = `ratelimited.${Date.now()}@example.com`;
		simulator.control.addFault({ method: 'POST', path: '/bookings', kind: 'rate_limit', retryAfterSeconds: 1, count: 1 });
		const output = await run({
			resource: 'booking',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: introCall().id },
			start,
			bookerName: 'Rate Limited',
			bookerEmail: email,
			bookerTimeZone: 'UTC',
		});

		const attempts = requestsTo('POST', '/bookings');
		expect(attempts.map((attempt) => attempt.status)).toEqual([429, 201]);
		expect(new Set(attempts.map((attempt) => attempt.idempotencyKey)).size).toBe(1);
		const ofBooker = (await heldBookings()).filter((booking) => booking.booker.email === email);
		expect(ofBooker).toHaveLength(1);
		expect(output).toEqual(ofBooker.map((booking) => asOutput(booking)));
	});

	it('a Retry-After of an hour is not waited out: the run fails at once, naming the wait', async () => {
		simulator.control.addFault({ method: 'GET', path: '/me', kind: 'rate_limit', retryAfterSeconds: 3600, count: 1 });
		const started = Date.now();
		await expect(run({ resource: 'account', operation: 'get' })).rejects.toThrow(/asks to wait 3600 seconds/);
		expect(requestsTo('GET', '/me').map((request) => request.status)).toEqual([429]);
		// Not waited: well under the hour (the bound covers the workflow's publish and delete around the run).
		expect(Date.now() - started).toBeLessThan(60_000);
	});
});

describe('Continue On Fail', () => {
	it('one bad item of three: an error item paired with input 1, two bookings, nothing sent for the bad one', async () => {
		const [first, second] = await freeIntroCallStarts();
		const stamp = Date.now();
		const inputs = [
			{ start: first, email: `one.${stamp}@example.com` },
			{ start: second, email: 'bad-address' },
			{ start: second, email: `three.${stamp}@example.com` },
		];
		const output = await client.runWorkflowViaWebhook(
			[
				...bookEachItem('continueRegularOutput'),
				// n8n resolves `$('Items').item` through each output item's pairedItem: this shows the pairing.
				{
					name: 'Paired Input',
					type: 'n8n-nodes-base.set',
					typeVersion: 3.4,
					parameters: {
						mode: 'manual',
						includeOtherFields: true,
						assignments: {
							assignments: [
								{ id: 'paired', name: 'pairedInputEmail', value: "={{ $('Items').item.json.email }}", type: 'string' },
							],
						},
						options: {},
					},
				},
			],
			{
				Items: { main: [[{ node: 'Book', type: 'main', index: 0 }]] },
				Book: { main: [[{ node: 'Paired Input', type: 'main', index: 0 }]] },
			},
			{ items: inputs },
		);

		expect(output.map((item) => item.pairedInputEmail)).toEqual(inputs.map((input) => input.email));
		expect(output[0]).toMatchObject({ booker: { email: inputs[0].email }, status: 'confirmed' });
		expect(utcSecond(String(output[0].start))).toBe(first);
		expect(output[1]).toEqual({
			error: {
				message: expect.stringMatching(/^Booker Email must be an email address.*\[item 1\]$/),
				description: expect.stringMatching(/^Nothing was sent for input item/),
			},
			pairedInputEmail: 'bad-address',
		});
		expect(output[2]).toMatchObject({ booker: { email: inputs[2].email }, status: 'confirmed' });
		expect(utcSecond(String(output[2].start))).toBe(second);

		// Two requests, for items 0 and 2; the simulator holds their bookings and nothing for the bad address.
		expect(requestsTo('POST', '/bookings').map((request) => request.status)).toEqual([201, 201]);
		const held = await heldBookings();
		for (const input of inputs) {
			const ofBooker = held.filter((booking) => booking.booker.email === input.email);
			expect(ofBooker.map((booking) => booking.id)).toEqual(
				input.email === 'bad-address' ? [] : [output[inputs.indexOf(input)].id],
			);
		}
	});
});

describe('On Error: Continue (using error output), both branches wired', () => {
	it('failed items leave on the error output only, each with its input; the good ones on the success branch', async () => {
		const [first, second] = await freeIntroCallStarts();
		const stamp = Date.now();
		const inputs = [
			{ start: first, email: `ok.${stamp}@example.com` },
			{ start: second, email: 'not-an-address' }, // refused before sending
			{ start: first, email: `late.${stamp}@example.com` }, // 409: item 0 took the slot
		];
		const marker = (name: string, branch: string): WorkflowNode => ({
			name,
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'manual',
				includeOtherFields: true,
				assignments: { assignments: [{ id: branch, name: 'branch', value: branch, type: 'string' }] },
				options: {},
			},
		});
		let execution: Execution | undefined;
		await client.runWorkflowViaWebhook(
			[
				...bookEachItem('continueErrorOutput'),
				marker('Succeeded', 'success'),
				marker('Failed', 'error'),
			],
			{
				Items: { main: [[{ node: 'Book', type: 'main', index: 0 }]] },
				Book: {
					main: [
						[{ node: 'Succeeded', type: 'main', index: 0 }],
						[{ node: 'Failed', type: 'main', index: 0 }],
					],
				},
			},
			{ items: inputs },
			{ onExecution: (finished) => (execution = finished) },
		);

		const runData = execution!.data!.resultData.runData;
		const outputOf = (node: string, index = 0) =>
			(runData[node]?.[0]?.data?.main[index] ?? []).map((item) => item.json as Record<string, any>);
		expect(outputOf('Book', 0)).toHaveLength(1);
		expect(outputOf('Succeeded')).toEqual([
			expect.objectContaining({ branch: 'success', booker: expect.objectContaining({ email: inputs[0].email }) }),
		]);
		const failed = outputOf('Failed');
		expect(failed).toEqual([
			{
				...inputs[1],
				branch: 'error',
				error: {
					message: expect.stringMatching(/^Booker Email must be an email address.*\[item 1\]$/),
					description: expect.stringMatching(/^Nothing was sent for input item/),
				},
			},
			{
				...inputs[2],
				branch: 'error',
				error: {
					message: expect.stringMatching(/no longer free/),
					description: expect.any(String),
					httpCode: '409',
					code: 'slot_unavailable',
				},
			},
		]);
		expect(requestsTo('POST', '/bookings').map((request) => request.status)).toEqual([201, 409]);
	});
});

describe('A workflow whose time zone is not UTC', () => {
	it('a start picked without Z is booked at that wall-clock time in the workflow zone', async () => {
		const [, , start] = await freeIntroCallStarts();
		const zone = 'Asia/Tokyo';
		const picked = formatInZone(Date.parse(start), zone).slice(0, 19); // what the date picker stores: no offset
		const email = `tokyo.${Date.now()}@example.com`;
		const output = await client.runWorkflowViaWebhook(
			[
				bookingServiceNode('Book', {
					resource: 'booking',
					operation: 'create',
					eventType: { __rl: true, mode: 'id', value: introCall().id },
					start: picked,
					bookerName: 'Jane Doe',
					bookerEmail: email,
					bookerTimeZone: 'asia/tokyo', // typed in odd case: the service receives the canonical name
				}),
			],
			{},
			{},
			{ settings: { timezone: zone } },
		);

		const held = (await heldBookings()).filter((booking) => booking.booker.email === email);
		expect(held).toHaveLength(1);
		expect(utcSecond(held[0].start)).toBe(start);
		expect(held[0].booker.timezone).toBe('Asia/Tokyo');
		expect(output).toEqual([asOutput(held[0], zone)]);
		expect(String(output[0].localStart).slice(0, 19)).toBe(picked);
	});
});
