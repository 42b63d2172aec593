import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { Booking } from '../../../shared/booking';
import { nameLanguageOption } from '../../../shared/descriptions';
import { bookingServiceApiRequest } from '../../../shared/transport';
import { presentBooking } from '../../helpers/bookingOutput';
import type { BookingOutput } from '../../helpers/bookingOutput';
import { ItemParameters } from '../../helpers/validation';
import {
	bookingLocator,
	optionsCollection,
	simplifyField,
	timeoutOption,
	timeZoneOption,
} from '../common.descriptions';
import { readBookingOutput, readTimeoutMs } from '../sharedOptions';

const MAX_MESSAGE_LENGTH = 1000;

const properties: INodeProperties[] = [
	bookingLocator,
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: 'e.g. Sorry, I have to move this — please pick a new time.',
		description: `Optional note for the customer, included in the cancellation email. At most ${MAX_MESSAGE_LENGTH} characters.`,
	},
	simplifyField,
	optionsCollection([nameLanguageOption, timeZoneOption, timeoutOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['booking'], operation: ['cancel'] } },
	properties,
);

interface Input {
	bookingId: string;
	message: string | undefined;
	output: BookingOutput;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	return {
		bookingId: parameters.requiredResourceLocatorId('bookingId', 'Booking'),
		message: parameters.optionalString('message', 'Message', { max: MAX_MESSAGE_LENGTH }),
		output: readBookingOutput(parameters),
		timeoutMs: readTimeoutMs(parameters),
	};
}

/**
 * Cancelling is idempotent on the service: an already cancelled booking comes back unchanged and nothing is sent
 * to the customer, so a retried or repeated cancel is safe and not an error.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	const body: IDataObject = input.message === undefined ? {} : { message: input.message };
	const booking = (await bookingServiceApiRequest.call(
		this,
		{
			method: 'POST',
			path: `/bookings/${input.bookingId}/cancel`,
			body,
			scope: 'bookings:write',
			timeoutMs: input.timeoutMs,
		},
		itemIndex,
	)) as Booking;
	return presentBooking(booking, input.output);
}
