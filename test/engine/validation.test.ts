/**
 * Bad input never reaches the service: every case fails in n8n's engine before a single request (the simulator's
 * request log proves it), with an error naming the parameter and the item. Values come from expressions over the
 * incoming items — the way bad data really arrives; n8n's editor already refuses empty required fields.
 */
import { describe, expect, it } from 'vitest';

import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { BOOKING_SERVICE_NODE_TYPE, bookingServiceNode, createNodeTypes, runWorkflow } from '../harness/engine.ts';
import {
	createBookingParameters,
	credentialsFor,
	eventTypeId,
	freeSlots,
	requestsTo,
	useTestSimulator,
} from '../harness/fixtures.ts';

const sim = useTestSimulator();

const FROM_ITEM = '={{ $json.value }}';
/** The cases are built before the simulator starts, so the event type comes in with the item. */
const introCall = '={{ $json.eventTypeId }}';

function createBooking(overrides: Record<string, unknown>) {
	return createBookingParameters(introCall, '2026-03-10T10:00:00Z', overrides);
}

const cases: Array<[string, Record<string, unknown>, unknown, RegExp]> = [
	[
		'booker email',
		createBooking({ bookerEmail: FROM_ITEM }),
		'jane.example.com',
		/^Booker Email must be an email address/,
	],
	[
		'booker name too long',
		createBooking({ bookerName: FROM_ITEM }),
		'x'.repeat(121),
		/^Booker Name must be at most 120 characters/,
	],
	[
		'booker name empty',
		createBooking({ bookerName: FROM_ITEM }),
		'   ',
		/^Booker Name is required/,
	],
	[
		'booker time zone',
		createBooking({ bookerTimeZone: FROM_ITEM }),
		'Mars/Olympus_Mons',
		/^Booker Time Zone must be an IANA time zone/,
	],
	[
		'start not a date',
		createBooking({ start: FROM_ITEM }),
		'next tuesday',
		/^Start must be a date and time/,
	],
	[
		'start not a real day',
		createBooking({ start: FROM_ITEM }),
		'2026-02-30T10:00:00Z',
		/^Start must be a date and time/,
	],
	[
		'event type id',
		createBooking({ eventType: { __rl: true, mode: 'id', value: FROM_ITEM } }),
		'ABC123',
		/^Event Type must be an ID of 24 lowercase hexadecimal/,
	],
	[
		'phone too long',
		createBooking({ additionalFields: { phone: FROM_ITEM } }),
		'1'.repeat(41),
		/^Booker Phone must be at most 40/,
	],
	[
		'notes too long',
		createBooking({ additionalFields: { notes: FROM_ITEM } }),
		'n'.repeat(2001),
		/^Notes must be at most 2000/,
	],
	[
		'locale',
		createBooking({ additionalFields: { locale: FROM_ITEM } }),
		'de',
		/^Booker Locale must be one of: en, ja/,
	],
	[
		'booking id',
		{ resource: 'booking', operation: 'get', bookingId: FROM_ITEM },
		'12345',
		/^Booking must be an ID of 24/,
	],
	[
		'cancel message',
		{
			resource: 'booking',
			operation: 'cancel',
			bookingId: '0123456789abcdef01234567',
			message: FROM_ITEM,
		},
		'm'.repeat(1001),
		/^Message must be at most 1000/,
	],
	[
		'email filter',
		{ resource: 'booking', operation: 'getMany', filters: { email: FROM_ITEM } },
		'nobody@',
		/^Booker Email must be an email address/,
	],
	[
		'start range reversed',
		{
			resource: 'booking',
			operation: 'getMany',
			filters: { startFrom: '2026-03-10T00:00:00Z', startTo: FROM_ITEM },
		},
		'2026-03-01T00:00:00Z',
		/^Start To must not be before Start From/,
	],
	[
		'status filter',
		{ resource: 'booking', operation: 'getMany', filters: { status: FROM_ITEM } },
		'confirmed,pending',
		/^Status may only contain/,
	],
	[
		'limit',
		{ resource: 'booking', operation: 'getMany', returnAll: false, limit: FROM_ITEM },
		0,
		/^Limit must be between 1 and/,
	],
	[
		'slots from',
		{
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: introCall },
			from: FROM_ITEM,
			to: '2026-03-10',
		},
		'2026-13-01',
		/^From must be a date/,
	],
	[
		'slots to before from',
		{
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: introCall },
			from: '2026-03-10',
			to: FROM_ITEM,
		},
		'2026-03-09',
		/^To must not be before From/,
	],
	[
		'slots range too long',
		{
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: introCall },
			from: '2026-03-01',
			to: FROM_ITEM,
		},
		'2029-03-02',
		/^To must make a range of at most 1096 days/,
	],
	[
		'slots time zone',
		{
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: introCall },
			from: '2026-03-01',
			to: '2026-03-02',
			options: { timeZone: FROM_ITEM },
		},
		'+09:00',
		/^Time Zone must be an IANA time zone/,
	],
	[
		'invite expiry',
		{
			resource: 'invite',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: introCall },
			additionalFields: { expiresInDays: FROM_ITEM },
		},
		91,
		/^Expires In Days must be between 1 and 90/,
	],
	[
		'invite email',
		{
			resource: 'invite',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: introCall },
			additionalFields: { email: FROM_ITEM },
		},
		'a b@example.com',
		/^Email must be an email address/,
	],
	[
		'invite name',
		{
			resource: 'invite',
			operation: 'create',
			eventType: { __rl: true, mode: 'id', value: introCall },
			additionalFields: { name: FROM_ITEM },
		},
		'n'.repeat(121),
		/^Name must be at most 120/,
	],
	[
		'webhook url',
		{ resource: 'webhookSubscription', operation: 'create', url: FROM_ITEM, events: ['*'] },
		'hooks.example.com/x',
		/^URL must be a full address/,
	],
	[
		'webhook url too long',
		{ resource: 'webhookSubscription', operation: 'create', url: FROM_ITEM, events: ['*'] },
		`https://example.com/${'p'.repeat(2000)}`,
		/^URL must be at most 2000/,
	],
	[
		'webhook events',
		{
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'https://hooks.example.com/x',
			events: FROM_ITEM,
		},
		['booking.deleted'],
		/^Events may only contain/,
	],
	[
		'webhook description',
		{
			resource: 'webhookSubscription',
			operation: 'create',
			url: 'https://hooks.example.com/x',
			events: ['*'],
			additionalFields: { description: FROM_ITEM },
		},
		'd'.repeat(201),
		/^Description must be at most 200/,
	],
	[
		'webhook id',
		{ resource: 'webhookSubscription', operation: 'delete', webhookSubscriptionId: FROM_ITEM },
		'whk_1',
		/^Webhook Subscription ID must be an ID of 24/,
	],
	[
		'timeout option',
		{ resource: 'account', operation: 'get', options: { timeout: FROM_ITEM } },
		-5,
		/^Timeout must be between 1 and 600000/,
	],
];

describe('bad input fails before any request, naming the field and the item', () => {
	it.each(cases)('%s', async (_, parameters, value, message) => {
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Node', parameters)],
			startItems: [{ value, eventTypeId: eventTypeId(sim, 'intro-call') }],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toMatchObject({ name: 'NodeOperationError' });
		expect(result.error!.message).toMatch(message);
		expect(result.error!.message).toMatch(/\[item 0\]$/);
		expect(requestsTo(sim)).toEqual([]);
	});

	it('a credential whose Base URL is not http(s) fails before any request', async () => {
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim, 'readWrite', sim.baseUrl.replace('http:', 'ftp:')),
		});

		expect(result.error).toMatchObject({ name: 'NodeOperationError' });
		expect(result.error!.message).toMatch(/Base URL .* must start with https:\/\//);
		expect(requestsTo(sim)).toEqual([]);
	});
});

describe('several items', () => {
	it('one bad item stops the node before any item is sent', async () => {
		const [first, second] = await freeSlots(sim, 'intro-call');
		sim.control.clearRequests();
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode(
					'Book',
					createBooking({ start: '={{ $json.start }}', bookerEmail: '={{ $json.email }}' }),
				),
			],
			startItems: [
				{ start: first, email: 'one@example.com', eventTypeId: eventTypeId(sim, 'intro-call') },
				{ start: second, email: 'two(at)example.com', eventTypeId: eventTypeId(sim, 'intro-call') },
			],
			credentials: credentialsFor(sim),
		});

		expect(result.error!.message).toMatch(/^Booker Email must be an email address.*\[item 1\]$/);
		expect(requestsTo(sim)).toEqual([]);
	});

	it('with Continue On Fail: one error item per failed input item, paired with it; the others are booked', async () => {
		const [first, second] = await freeSlots(sim, 'intro-call');
		sim.control.clearRequests();
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode(
					'Book',
					createBooking({ start: '={{ $json.start }}', bookerEmail: '={{ $json.email }}' }),
					{ onError: 'continueRegularOutput' },
				),
			],
			startItems: [
				{ start: first, email: 'one@example.com' },
				{ start: first, email: 'bad-address' },
				{ start: second, email: 'three@example.com' },
				{ start: first, email: 'four@example.com' }, // valid input, but the time is taken by item 0 by now
			].map((item) => ({ ...item, eventTypeId: eventTypeId(sim, 'intro-call') })),
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		const output = result.items.Book;
		expect(output.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(output[0].json).toMatchObject({ start: first, booker: { email: 'one@example.com' } });
		expect(output[1].json).toEqual({
			error: {
				message: expect.stringMatching(/^Booker Email must be an email address.*\[item 1\]$/),
				description: expect.stringMatching(/^Nothing was sent for input item/),
			},
		});
		expect(output[2].json).toMatchObject({ start: second, booker: { email: 'three@example.com' } });
		expect(output[3].json).toEqual({
			error: {
				message: expect.stringMatching(/no longer free/),
				description: expect.any(String),
				httpCode: '409',
				code: 'slot_unavailable',
			},
		});
		expect(requestsTo(sim, '/bookings')).toHaveLength(3);
	});
});

// The simulator's clock (SIMULATED_NOW, 2026-03-02 00:00 UTC, flowing) is n8n's clock here too (fixtures.ts).
describe('a start in the past is refused before sending, saying how it was read', () => {
	const book = (start: string, options: Record<string, unknown> = {}) =>
		bookingServiceNode('Book', createBooking({ start, eventType: { __rl: true, mode: 'id', value: eventTypeId(sim, 'intro-call') }, ...options }));

	it('names the field and the item, shows the value as read in the workflow zone, and sends nothing', async () => {
		const result = await runWorkflow({ nodes: [book('2026-02-20 10:00')], credentials: credentialsFor(sim), timezone: 'Asia/Tokyo' });

		expect(result.error).toMatchObject({ name: 'NodeOperationError' });
		expect(result.error!.message).toBe(
			'Start is in the past: "2026-02-20 10:00" was read as 2026-02-20T10:00:00+09:00 in Asia/Tokyo, 10 days ago. Give a start that has not passed, e.g. a slot from Get Available Slots [item 0]',
		);
		expect(requestsTo(sim)).toEqual([]);
	});

	it('an instant with an offset (a slot from last year) is shown in the zone the node reads times in', async () => {
		const result = await runWorkflow({
			nodes: [book('2025-03-10T09:00:00Z', { options: { timeZone: 'America/New_York' } })],
			credentials: credentialsFor(sim),
		});

		expect(result.error!.message).toMatch(
			/^Start is in the past: "2025-03-10T09:00:00Z" was read as 2025-03-10T05:00:00-04:00 in America\/New_York, 35\d days ago\./,
		);
		expect(requestsTo(sim)).toEqual([]);
	});

	it('a start a minute ago is within the clocks\' tolerance: it is sent, and the service decides', async () => {
		const aMinuteAgo = new Date(Date.parse(sim.control.now().now) - 60_000).toISOString();
		const result = await runWorkflow({ nodes: [book(aMinuteAgo)], credentials: credentialsFor(sim) });

		expect(result.error).toMatchObject({ httpCode: '409' });
		expect(requestsTo(sim, '/bookings')).toHaveLength(1);
	});
});

describe('as an AI agent tool, a refusal also says what a chatbot should do next', () => {
	// n8n runs a node an agent uses as its `…Tool` variant (same class, another type name).
	const TOOL_TYPE = `${BOOKING_SERVICE_NODE_TYPE}Tool`;
	const nodeTypes = createNodeTypes({ [TOOL_TYPE]: new BookingService() });
	const run = async (parameters: Record<string, unknown>, type: string) =>
		await runWorkflow({
			nodes: [{ ...bookingServiceNode('Create booking', parameters), type }],
			startItems: [{ eventTypeId: eventTypeId(sim, 'intro-call') }],
			credentials: credentialsFor(sim),
			nodeTypes,
		});

	it('an invalid email: the workflow reads what to change; the model also reads to ask the customer again', async () => {
		const parameters = createBooking({ bookerEmail: 'ada at example' });
		const inWorkflow = await run(parameters, BOOKING_SERVICE_NODE_TYPE);
		const asTool = await run(parameters, TOOL_TYPE);

		expect(inWorkflow.error!.message).toBe(
			'Booker Email must be an email address such as jane@example.com (got "ada at example") [item 0]',
		);
		expect(asTool.error!.message).toBe(
			'Booker Email must be an email address such as jane@example.com (got "ada at example"). Nothing was sent; ask the customer for their email address again. [item 0]',
		);
	});

	it('a start in the past: the model is told to check today\'s date and offer slots', async () => {
		const asTool = await run(createBooking({ start: '2025-03-10T09:00:00-05:00' }), TOOL_TYPE);

		expect(asTool.error!.message).toMatch(
			/^Start is in the past: .*\. Nothing was sent\. Check today's date in your instructions, then offer the customer times from the available slots \(all in the future\)\. \[item 0\]$/,
		);
		expect(requestsTo(sim)).toEqual([]);
	});

	it('a setup problem (the credential\'s Base URL): the model is told not to retry and to tell the customer', async () => {
		const asTool = await runWorkflow({
			nodes: [{ ...bookingServiceNode('Create booking', createBooking({})), type: TOOL_TYPE }],
			startItems: [{ eventTypeId: eventTypeId(sim, 'intro-call') }],
			credentials: credentialsFor(sim, 'readWrite', sim.baseUrl.replace('http:', 'ftp:')),
			nodeTypes,
		});

		expect(asTool.error!.message).toMatch(
			/must start with https:\/\/\. This is a setup problem of the booking system, not of the request: tell the customer booking is not possible right now, and do not retry\.$/,
		);
	});

	it('a time taken meanwhile: the model is told to offer the nearest free times the error names', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		await run(createBooking({ start: slot }), BOOKING_SERVICE_NODE_TYPE);
		const inWorkflow = await run(createBooking({ start: slot, bookerEmail: 'b@example.com' }), BOOKING_SERVICE_NODE_TYPE);
		const asTool = await run(createBooking({ start: slot, bookerEmail: 'c@example.com' }), TOOL_TYPE);

		expect(inWorkflow.error!.message).not.toMatch(/customer|offer/);
		expect(asTool.error!.message).toBe(
			`${inWorkflow.error!.message} Offer the customer the nearest free times named here, and book one only after they choose it.`,
		);
	});
});
