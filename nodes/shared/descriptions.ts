/** Parameter descriptions several nodes show, written once so every node offers the same choice. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ALL_EVENTS } from './booking';
import { NOT_A_NAME, RESOURCE_ID_PATTERN, RESOURCE_ID_RULE } from './resourceId';

/**
 * Under a picked date or time: the zone it is read in, said where the value is picked. The picker's Now fills in the
 * browser's clock, which may be another zone than the workflow's.
 */
export const PICKED_TIME_HINT =
	"Read in the workflow's time zone (Workflow Settings → Timezone), not your computer's: the picker's Now is your clock";

/** The same for an operation with a Time Zone option, which names another zone. */
export const PICKED_TIME_HINT_WITH_OPTION =
	"Read in the workflow's time zone (Workflow Settings → Timezone) or the Time Zone option, not your computer's";

/** Under a day field: the zone whose midnight starts and ends it. */
export const DAY_HINT = "A day in the workflow's time zone (Workflow Settings → Timezone) or the Time Zone option";

/**
 * By ID accepts exactly the contract's id pattern, so a typo is flagged in the panel before anything runs, in the
 * sentence the node's own check gives (n8n lists a node's issues without the field's name, so the text names it).
 */
export function byIdMode(label: string) {
	return {
		displayName: 'By ID',
		name: 'id',
		type: 'string' as const,
		placeholder: 'e.g. 65f1c0ffee0123456789abcd',
		validation: [
			{
				type: 'regex' as const,
				properties: {
					regex: RESOURCE_ID_PATTERN.source,
					errorMessage: `${label} ${RESOURCE_ID_RULE}, ${NOT_A_NAME}: choose From List to pick it by name`,
				},
			},
		],
	};
}

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
		byIdMode('Event Type'),
	],
};

/** The choices of an events selection (a trigger's, or a webhook subscription's), sorted by name as n8n wants. */
export const bookingEventOptions: INodePropertyOptions[] = [
	{
		name: 'All Events',
		value: ALL_EVENTS,
		description: 'Every event, including kinds the service adds later',
	},
	{
		name: 'Booking Cancelled',
		value: 'booking.cancelled',
		description:
			'Cancelled by the customer, the host, or the system when payment was not completed',
	},
	{
		name: 'Booking Created',
		value: 'booking.created',
		description:
			'A booking became confirmed for the first time (for paid event types, after payment)',
	},
	{
		name: 'Booking No-Show',
		value: 'booking.no_show',
		description: 'The host marked the booking as a no-show',
	},
	{
		name: 'Booking Rescheduled',
		value: 'booking.rescheduled',
		description: 'A booking moved to a new time; the event includes the previous time',
	},
];

/** A trigger's canvas subtitle: "Booking Created, Booking No-Show" rather than the service's names; "*" reads "All Events". */
export const bookingEventsSubtitle =
	'={{($parameter["events"] || []).map(e => e === "*" ? "All Events" : "Booking " + e.replace("booking.", "").split("_").map(w => w.charAt(0).toUpperCase() + w.slice(1)).join("-")).join(", ")}}';

export const nameLanguageOption: INodeProperties = {
	displayName: 'Name Language',
	name: 'nameLanguage',
	type: 'options',
	default: 'service',
	description:
		'Which translation of event type names (and booking question labels) to return. Falls back to the name the service chose when the translation is missing.',
	options: [
		{ name: 'As Returned by the Service', value: 'service' },
		{ name: 'English', value: 'en' },
		{ name: 'Japanese', value: 'ja' },
	],
};

/** Options entry of both triggers: only bookings of these event types start the workflow. */
export const eventTypesFilterOption: INodeProperties = {
	displayName: 'Event Types',
	name: 'eventTypes',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add event type',
	default: {},
	description:
		'Only bookings of these event types start the workflow; others are skipped without a run. None: every event type.',
	options: [
		{
			displayName: 'Event Type',
			name: 'eventType',
			values: [
				{
					...eventTypeLocator,
					required: false,
					description: 'An event type whose bookings start the workflow',
				},
			],
		},
	],
};

/** The event type IDs of an Event Types option (resource locators, or plain IDs from expressions). */
export function readEventTypesFilter(collection: unknown): string[] {
	const entries = (collection as { eventType?: unknown } | undefined)?.eventType;
	const ids: string[] = [];
	for (const entry of Array.isArray(entries) ? entries : []) {
		const locator = (entry as { eventType?: unknown } | null)?.eventType;
		const value = typeof locator === 'object' && locator !== null ? (locator as { value?: unknown }).value : locator;
		const id = typeof value === 'string' ? value.trim() : '';
		if (id !== '') ids.push(id);
	}
	return ids;
}
