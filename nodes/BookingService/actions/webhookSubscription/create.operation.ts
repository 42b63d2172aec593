import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { ALL_EVENTS, BOOKING_EVENTS } from '../../../shared/booking';
import { bookingEventOptions } from '../../../shared/descriptions';
import { bookingServiceApiRequest } from '../../../shared/transport';
import { ItemParameters } from '../../helpers/validation';
import { characterCount } from '../../helpers/valueRules';
import {
	additionalFieldsCollection,
	optionsCollection,
	timeoutOption,
} from '../common.descriptions';
import { readTimeoutMs } from '../sharedOptions';

const EVENTS = [ALL_EVENTS, ...BOOKING_EVENTS];
const MAX_URL_LENGTH = 2000;

const properties: INodeProperties[] = [
	{
		displayName:
			'The output contains the signing secret, which the service shows only this once: store it somewhere safe right away. To start workflows from booking events, use the Booking Service Trigger node instead — it manages its own subscription.',
		name: 'secretNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://hooks.example.com/booking-events',
		hint: 'Must be https and reachable from the internet',
		description:
			'Where the service sends events. The service accepts only https addresses that resolve to a public IP address.',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		default: [ALL_EVENTS],
		required: true,
		description: 'Which events to receive. All Events also receives kinds added later.',
		options: bookingEventOptions,
	},
	additionalFieldsCollection([
		{
			displayName: 'Description',
			name: 'description',
			type: 'string',
			default: '',
			placeholder: 'e.g. CRM sync',
			description: 'A note for yourself about what the subscription is for, at most 200 characters',
		},
	]),
	optionsCollection([timeoutOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['create'] } },
	properties,
);

interface Input {
	body: IDataObject;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	const url = parameters.requiredString('url', 'URL', { max: MAX_URL_LENGTH });
	// Only the shape is checked here. Whether the address is https and public is the service's call: its local
	// sandbox may allow http and loopback targets, and DNS answers can change between check and use anyway.
	if (!isHttpUrl(url))
		throw parameters.invalid('URL', 'must be a full address starting with https://', url);
	const events = parameters.listOf('events', 'Events', EVENTS);
	if (events.length === 0) throw parameters.invalid('Events', 'must contain at least one event');
	const body: IDataObject = {
		url,
		// "*" already covers every kind, so sending more would only repeat it.
		events: events.includes(ALL_EVENTS) ? [ALL_EVENTS] : events,
	};
	const note = parameters.optionalString('additionalFields.description', 'Description', {
		max: 200,
	});
	if (note !== undefined) body.description = note;
	return { body, timeoutMs: readTimeoutMs(parameters) };
}

function isHttpUrl(text: string): boolean {
	try {
		const url = new URL(text);
		return (
			(url.protocol === 'https:' || url.protocol === 'http:') && characterCount(url.hostname) > 0
		);
	} catch {
		return false;
	}
}

/** The answer includes `secret`: this is the only output of the package that ever contains one, by design. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	return (await bookingServiceApiRequest.call(
		this,
		{
			method: 'POST',
			path: '/webhooks',
			body: input.body,
			scope: 'webhooks:manage',
			timeoutMs: input.timeoutMs,
		},
		itemIndex,
	)) as IDataObject;
}
