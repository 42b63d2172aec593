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

const properties: INodeProperties[] = [
	bookingLocator,
	simplifyField,
	optionsCollection([nameLanguageOption, timeZoneOption, timeoutOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['booking'], operation: ['get'] } },
	properties,
);

interface Input {
	bookingId: string;
	output: BookingOutput;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	return {
		bookingId: parameters.requiredResourceLocatorId('bookingId', 'Booking'),
		output: readBookingOutput(parameters),
		timeoutMs: readTimeoutMs(parameters),
	};
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	const booking = (await bookingServiceApiRequest.call(
		this,
		{
			method: 'GET',
			path: `/bookings/${input.bookingId}`,
			scope: 'bookings:read',
			timeoutMs: input.timeoutMs,
		},
		itemIndex,
	)) as Booking;
	return presentBooking(booking, input.output);
}
