import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../../../shared/transport';
import { eventTypeLocator } from '../../../shared/descriptions';
import { ItemParameters } from '../../helpers/validation';
import {
	additionalFieldsCollection,
	optionsCollection,
	timeoutOption,
} from '../common.descriptions';
import { readTimeoutMs } from '../sharedOptions';

const properties: INodeProperties[] = [
	{
		...eventTypeLocator,
		description: 'The event type the link books. Works for public and invite-only event types.',
	},
	additionalFieldsCollection([
		{
			displayName: 'Email',
			name: 'email',
			type: 'string',
			default: '',
			placeholder: 'e.g. jane@example.com',
			description: 'Email address of the invitee, to prefill the booking form',
		},
		{
			displayName: 'Expires In Days',
			name: 'expiresInDays',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 90 },
			default: 14,
			description: 'How long the link stays usable, 1 to 90 days',
		},
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			placeholder: 'e.g. Jane Doe',
			description: 'Name of the invitee, at most 120 characters, to prefill the booking form',
		},
	]),
	optionsCollection([timeoutOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['invite'], operation: ['create'] } },
	properties,
);

interface Input {
	body: IDataObject;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	const body: IDataObject = {
		eventTypeId: parameters.requiredResourceLocatorId('eventType', 'Event Type'),
	};
	const name = parameters.optionalString('additionalFields.name', 'Name', { max: 120 });
	if (name !== undefined) body.name = name;
	const email = parameters.optionalEmail('additionalFields.email', 'Email');
	if (email !== undefined) body.email = email;
	const expiresInDays = parameters.optionalInteger(
		'additionalFields.expiresInDays',
		'Expires In Days',
		{ min: 1, max: 90 },
	);
	if (expiresInDays !== undefined) body.expiresInDays = expiresInDays;
	return { body, timeoutMs: readTimeoutMs(parameters) };
}

/** The link's `url` is in this answer only; the service cannot show it again. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	return (await bookingServiceApiRequest.call(
		this,
		{
			method: 'POST',
			path: '/invites',
			body: input.body,
			scope: 'bookings:write',
			timeoutMs: input.timeoutMs,
		},
		itemIndex,
	)) as IDataObject;
}
