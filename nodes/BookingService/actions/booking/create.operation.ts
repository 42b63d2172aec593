import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Booking } from '../../../shared/booking';
import { eventTypeLocator, nameLanguageOption } from '../../../shared/descriptions';
import { bookingServiceApiRequest } from '../../../shared/transport';
import { presentBooking } from '../../helpers/bookingOutput';
import type { BookingOutput } from '../../helpers/bookingOutput';
import { deriveIdempotencyKey, idempotencyKeyFromUserValue } from '../../helpers/idempotency';
import { explainIfStartNotFree } from '../../helpers/startNotFree';
import { requiredFutureStart } from '../../helpers/startTime';
import { ItemParameters } from '../../helpers/validation';
import {
	additionalFieldsCollection,
	optionsCollection,
	simplifyField,
	timeoutOption,
	timeZoneField,
	timeZoneNotice,
	timeZoneOption,
} from '../common.descriptions';
import { readBookingOutput, readTimeoutMs } from '../sharedOptions';

const LOCALES = ['en', 'ja'] as const;

const properties: INodeProperties[] = [
	timeZoneNotice,
	{
		...eventTypeLocator,
		description:
			'The event type to book. It must be active; unpublished event types can be booked for testing.',
	},
	{
		displayName: 'Start',
		name: 'start',
		type: 'dateTime',
		default: '',
		required: true,
		hint: "One booking per incoming item. A value without Z or an offset is read in the workflow's time zone (Workflow Settings → Timezone) or the Time Zone option, not your computer's. From Get Available Slots: {{ $json.slot }} after One Item per Slot (keep only the chosen item first, e.g. with a Limit node: 40 slot items make 40 bookings), {{ $json.slots[0] }} after One Item With All Slots",
		description:
			"When the booking starts. A value without Z or an offset (the date picker stores 2026-03-02T10:00:00) is read in the workflow's time zone, or in the Time Zone option (under Options); the service receives UTC. A start that has passed is refused. Use a slot from Get Available Slots to be sure the time is free.",
	},
	{
		displayName: 'Booker Name',
		name: 'bookerName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Jane Doe',
		description: 'Name of the customer the booking is for, 1 to 120 characters',
	},
	{
		displayName: 'Booker Email',
		name: 'bookerEmail',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. jane@example.com',
		description: "The customer's email address; confirmations go there unless Notify is off",
	},
	{
		...timeZoneField,
		displayName: 'Booker Time Zone',
		name: 'bookerTimeZone',
		required: true,
		description:
			'The customer\'s IANA time zone, used for the times in their emails. It does not change how Start is read. Choose from the list, or specify a name such as Europe/Berlin using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	simplifyField,
	additionalFieldsCollection([
		{
			displayName: 'Booker Locale',
			name: 'locale',
			type: 'options',
			default: 'en',
			description: 'Language of the emails to the customer',
			options: [
				{ name: 'English', value: 'en' },
				{ name: 'Japanese', value: 'ja' },
			],
		},
		{
			displayName: 'Booker Phone',
			name: 'phone',
			type: 'string',
			default: '',
			placeholder: 'e.g. +81 90 1234 5678',
			description: "The customer's phone number, at most 40 characters",
		},
		{
			displayName: 'Notes',
			name: 'notes',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			description: 'Notes from the customer, at most 2000 characters',
		},
		{
			displayName: 'Notify',
			name: 'notify',
			type: 'boolean',
			default: true,
			description:
				'Whether the customer is emailed. When off, no email, no calendar entry and no booking.created webhook event.',
		},
	]),
	optionsCollection([
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.orderId }}',
			description:
				'Sending the same key again returns the first booking instead of making another. Without it the node derives a key per item and execution, so Retry On Fail never books twice. Set your own (e.g. an order number) to also protect re-runs of the workflow; a value that is not a UUID is turned into one.',
		},
		nameLanguageOption,
		timeZoneOption,
		timeoutOption,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['booking'], operation: ['create'] } },
	properties,
);

interface Input {
	body: IDataObject;
	userIdempotencyKey: string | undefined;
	output: BookingOutput;
	timeoutMs: number | undefined;
	/** The zone Start was read in: a 409 names the nearest free times in it. */
	zone: string;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	const booker: IDataObject = {
		name: parameters.requiredString('bookerName', 'Booker Name', { max: 120 }),
		email: parameters.requiredEmail('bookerEmail', 'Booker Email'),
		timezone: parameters.requiredTimeZone('bookerTimeZone', 'Booker Time Zone'),
	};
	const phone = parameters.optionalString('additionalFields.phone', 'Booker Phone', { max: 40 });
	if (phone !== undefined) booker.phone = phone;
	if (parameters.raw('additionalFields.locale') !== null) {
		booker.locale = parameters.oneOf('additionalFields.locale', 'Booker Locale', LOCALES, 'en');
	}
	const body: IDataObject = {
		eventTypeId: parameters.requiredResourceLocatorId('eventType', 'Event Type'),
		start: requiredFutureStart(this, parameters, 'start', 'Start'),
		booker,
	};
	const notes = parameters.optionalString('additionalFields.notes', 'Notes', { max: 2000 });
	if (notes !== undefined) body.notes = notes;
	const notify = parameters.optionalBoolean('additionalFields.notify', 'Notify');
	if (notify !== undefined) body.notify = notify;
	return {
		body,
		userIdempotencyKey: parameters.optionalString('options.idempotencyKey', 'Idempotency Key', {
			max: 255,
		}),
		output: readBookingOutput(parameters),
		timeoutMs: readTimeoutMs(parameters),
		zone: parameters.dateTimeZone(),
	};
}

/** The key for this item: the user's, or one that is the same on every Retry On Fail of this item (see idempotency.ts). */
function idempotencyKeyFor(this: IExecuteFunctions, itemIndex: number, input: Input): string {
	if (input.userIdempotencyKey !== undefined)
		return idempotencyKeyFromUserValue(input.userIdempotencyKey);
	const executionId = this.getExecutionId();
	const node = this.getNode();
	if (!executionId) {
		// Without an execution id nothing ties a retry to its first try; a fresh key at least never collides.
		return randomUUID();
	}
	const runIndex = Number(this.getWorkflowDataProxy(itemIndex).$runIndex ?? 0);
	return deriveIdempotencyKey(
		{ executionId, nodeId: node.id || node.name, runIndex, itemIndex },
		input.body,
	);
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	let booking: Booking;
	try {
		booking = (await bookingServiceApiRequest.call(
			this,
			{
				method: 'POST',
				path: '/bookings',
				body: input.body,
				headers: { 'Idempotency-Key': idempotencyKeyFor.call(this, itemIndex, input) },
				scope: 'bookings:write',
				timeoutMs: input.timeoutMs,
			},
			itemIndex,
		)) as Booking;
	} catch (error) {
		const { eventTypeId, start } = input.body as { eventTypeId: string; start: string };
		throw await explainIfStartNotFree.call(
			this,
			itemIndex,
			{ eventTypeId, start, zone: input.zone, timeoutMs: input.timeoutMs },
			error,
		);
	}
	return presentBooking(booking, input.output);
}
