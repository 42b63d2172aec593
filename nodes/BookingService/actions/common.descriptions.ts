/**
 * Parameter descriptions used by more than one operation, written once. Each operation file adds its own
 * displayOptions through updateDisplayOptions.
 */
import type { INodeProperties } from 'n8n-workflow';

import { byIdMode } from '../../shared/descriptions';
import { DEFAULT_TIMEOUT_MS } from '../../shared/transport';


/** Read with ItemParameters.requiredResourceLocatorId, which also takes a plain ID string from older workflows. */
export const bookingLocator: INodeProperties = {
	displayName: 'Booking',
	name: 'bookingId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description:
		'The booking: pick one of the most recent from the list (search by booker name, email or event type), or give its ID as returned by Create or Get Many',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a booking…',
			typeOptions: { searchListMethod: 'searchBookings', searchable: true },
		},
		byIdMode('Booking'),
	],
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
		'Whether to return a short summary of each booking (ID, status, event type, start and end in UTC and local time, booker name and email, links) instead of the full booking',
};

/** An entry for the Options collection; see also nameLanguageOption in nodes/shared/descriptions.ts. */
export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Milliseconds)',
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
	default: '',
	description:
		'An IANA time zone such as Europe/Berlin. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/**
 * The Options entry that overrides the node's one time-zone rule for an operation (see ItemParameters.dateTimeZone).
 * Its name is fixed: validation.ts reads it as TIME_ZONE_OPTION. A plain text field, so that once added it is not
 * shown red while empty: empty means the workflow's zone.
 */
export const timeZoneOption: INodeProperties = {
	displayName: 'Time Zone',
	name: 'timeZone',
	type: 'string',
	default: '',
	placeholder: 'e.g. Europe/Berlin',
	hint: "Empty: the workflow's time zone",
	description:
		"The IANA time zone (such as Europe/Berlin or America/New_York) in which dates and times without an offset are read and local times are shown. Empty: the workflow's time zone (Workflow Settings → Timezone).",
};

/** Shown above the fields of every operation that reads dates: which zone a value without an offset means. */
export const timeZoneNotice: INodeProperties = {
	displayName:
		"Dates and times without an offset (such as those the date picker gives) are read in the workflow's time zone (Workflow Settings → Timezone), not your computer's, unless the Time Zone option names another. The service receives UTC; the output shows UTC and the local times beside the zone they are in.",
	name: 'timeZoneNotice',
	type: 'notice',
	default: '',
};

/** The "Options" collection every operation has: settings that change how, not what, it asks. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
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
		placeholder: 'Add field',
		default: {},
		options,
	};
}
