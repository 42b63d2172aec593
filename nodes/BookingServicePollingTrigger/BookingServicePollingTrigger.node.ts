import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { searchEventTypes } from '../shared/eventTypeSearch';
import { isSelectedEvent, localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import {
	bookingEventOptions,
	bookingEventsSubtitle,
	eventTypesFilterOption,
	nameLanguageOption,
	PICKED_TIME_HINT,
	readEventTypesFilter,
} from '../shared/descriptions';
import { CREDENTIAL_TEST_METHOD, testBookingServiceCredential } from '../shared/credentialTest';
import type { BookingEvent } from './changes';
import { pollChanges } from './poll';
import { pollExclusively } from './pollLock';
import { rememberEvents } from './recentEvents';
import { sampleEvent } from './sample';

const pollEventOptions = [
	...bookingEventOptions,
	{
		name: 'Booking Completed',
		value: 'booking.completed',
		description: 'A booking became completed (seen by polling only)',
	},
	{
		name: 'Booking Updated',
		value: 'booking.updated',
		description: 'Any other change to a booking (seen by polling only)',
	},
].sort((a, b) => a.name.localeCompare(b.name));

interface Options {
	nameLanguage?: NameLanguage;
	eventTypes?: unknown;
	startFrom?: unknown;
}

function isWanted(event: BookingEvent<Booking>, events: string[], eventTypeIds: string[]): boolean {
	if (!isSelectedEvent(events, event.eventType)) return false;
	return eventTypeIds.length === 0 || eventTypeIds.includes(event.booking.eventType?.id);
}

function toItem(event: BookingEvent<Booking>, nameLanguage: NameLanguage): IDataObject {
	return { ...event, booking: localizeBooking(event.booking, nameLanguage) } as unknown as IDataObject;
}

export class BookingServicePollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Service Polling Trigger',
		name: 'bookingServicePollingTrigger',
		icon: { light: 'file:bookingServicePollingTrigger.svg', dark: 'file:bookingServicePollingTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: bookingEventsSubtitle,
		description:
			'Starts the workflow when bookings are created, rescheduled, cancelled, marked no-show, completed or changed — by checking for changes on a schedule, with no public URL needed',
		defaults: { name: 'Booking Service Polling Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingServiceApi', required: true, testedBy: 'bookingServiceApiTest' }],
		properties: [
			{
				displayName:
					'Checks the service for changed bookings at the Poll Times above: works on any n8n, no public URL needed, and events arrive up to one interval late. With a public https URL, the Booking Service Trigger delivers them at once instead. A "Read only" key is enough.',
				name: 'pollingNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: [],
				description: 'The booking changes that start the workflow',
				options: pollEventOptions,
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					eventTypesFilterOption,
					nameLanguageOption,
					{
						displayName: 'Start From',
						name: 'startFrom',
						type: 'dateTime',
						default: '',
						hint: PICKED_TIME_HINT,
						description:
							"For a first sync: on activation, report changes made since this time instead of starting from now. Read in the workflow's time zone when it has no offset. Only used when the trigger has no position yet.",
					},
				],
			},
		],
	};

	methods = {
		listSearch: { searchEventTypes },
		credentialTest: { [CREDENTIAL_TEST_METHOD]: testBookingServiceCredential },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const events = (this.getNodeParameter('events', []) as string[]).filter((event) => typeof event === 'string');
		if (events.length === 0) throw new NodeOperationError(this.getNode(), 'Choose at least one event to listen for');
		const options = this.getNodeParameter('options', {}) as Options;
		const eventTypeIds = readEventTypesFilter(options.eventTypes);
		const nameLanguage = options.nameLanguage ?? 'service';
		const owner = { workflowId: String(this.getWorkflow().id ?? ''), nodeId: this.getNode().id };
		const trigger = `${owner.workflowId}/${owner.nodeId}`;
		const wanted = (event: BookingEvent<Booking>) => isWanted(event, events, eventTypeIds);

		if (this.getMode() === 'manual') {
			return [this.helpers.returnJsonArray([toItem(await sampleEvent(this, trigger, wanted), nameLanguage)])];
		}

		const startFrom = options.startFrom === null || options.startFrom === '' ? undefined : options.startFrom;
		const changes = await pollExclusively(trigger, async () => await pollChanges(this, owner, startFrom));
		if (changes !== undefined) rememberEvents(trigger, changes);
		const items = changes?.filter(wanted).map((event) => toItem(event, nameLanguage));
		// undefined: this trigger's previous poll is still running, and this tick leaves the work to it.
		return items === undefined || items.length === 0 ? null : [this.helpers.returnJsonArray(items)];
	}
}
