/** Parameter descriptions both nodes show, written once so the action node and the trigger offer the same choice. */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { ALL_EVENTS } from './booking';

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

/** An entry for a node's Options collection. */
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
