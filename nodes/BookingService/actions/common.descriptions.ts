/**
 * Parameter descriptions used by more than one operation, written once. Each operation file adds its own
 * displayOptions through updateDisplayOptions.
 */
import type { INodeProperties } from 'n8n-workflow';

import { RESOURCE_ID_PATTERN } from '../../shared/resourceId';
import { DEFAULT_TIMEOUT_MS } from '../../shared/transport';

const RESOURCE_ID_HINT =
	'An ID is 24 lowercase hexadecimal characters, e.g. 65f1c0ffee0123456789abcd';

export const eventTypeLocator: INodeProperties = {
	displayName: 'Event Type',
	name: 'eventType',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The event type (what people book). Pick an active one from the list, or give its ID.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an event type…',
			typeOptions: {
				searchListMethod: 'searchEventTypes',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 65f1c0ffee0123456789abcd',
			validation: [
				{
					type: 'regex',
					properties: { regex: RESOURCE_ID_PATTERN.source, errorMessage: RESOURCE_ID_HINT },
				},
			],
		},
	],
};

export const bookingIdField: INodeProperties = {
	displayName: 'Booking ID',
	name: 'bookingId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 65f1c0ffee0123456789abcd',
	description: `The ID of the booking, as returned by Create or Get Many. ${RESOURCE_ID_HINT}.`,
};

export const returnAllField: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

export const limitField: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description:
		"Whether to return a flat summary of each booking (ID, status, event type name, booker, UTC start and end, start in the booker's and the host's time zone, links) instead of the full booking",
};

/** An entry for the Options collection; see also nameLanguageOption in nodes/shared/descriptions.ts. */
export const timeoutOption: INodeProperties = {
	displayName: 'Timeout',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_TIMEOUT_MS,
	description:
		'Milliseconds to wait for the service to answer each request before giving up. Combine with Retry On Fail in the node settings to try again.',
};

export const timeZoneField: INodeProperties = {
	displayName: 'Time Zone Name or ID',
	name: 'timeZone',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getTimeZones' },
	default: 'UTC',
	description:
		'An IANA time zone such as Europe/Berlin. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/** The "Options" collection every operation has: settings that change how, not what, it asks. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** The "Additional Fields" collection: optional fields sent to the service. */
export function additionalFieldsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options,
	};
}
