import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { parseDateTime } from '../BookingService/helpers/time';
import { searchEventTypes } from '../BookingService/methods/listSearch';
import { isSelectedEvent, localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import {
	bookingEventOptions,
	bookingEventsSubtitle,
	eventTypesFilterOption,
	nameLanguageOption,
	readEventTypesFilter,
} from '../shared/descriptions';
import { listAllPages } from '../shared/paging';
import { BOOKING_SERVICE_CREDENTIAL_TYPE } from '../shared/transport';
import { detectChanges, emptyState, eventFor, snapshotOf, updatedSinceFor } from './changes';
import type { BookingEvent } from './changes';
import { readPollState, writePollState } from './pollState';

/** How many of the most recently changed bookings a manual run ("Fetch Test Event") looks through for a sample. */
const SAMPLE_BOOKINGS = 100;
/** Statuses the default listing leaves out: their bookings are remembered at activation to see them confirmed. */
const IN_FLIGHT_STATUSES = ['held', 'awaiting_payment'];

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

async function listBookings(context: IPollFunctions, qs: IDataObject, limit?: number): Promise<Booking[]> {
	return (await listAllPages.call(context, { path: '/bookings', qs, limit, scope: 'bookings:read' })) as Booking[];
}

/**
 * Where a new trigger starts, in the service's own time: after the most recently changed booking (no flood of
 * history), or at Options → Start From for a first sync (undefined when not set). Bookings held or awaiting payment now are remembered, so
 * that their confirmation later reads as created.
 */
async function startingState(context: IPollFunctions, startFrom: unknown) {
	const inFlight = (
		await Promise.all(IN_FLIGHT_STATUSES.map(async (status) => await listBookings(context, { status }, 1000)))
	).flat();
	let state;
	if (startFrom !== undefined) {
		const instant = parseDateTime(startFrom, context.getTimezone());
		if (instant === undefined) {
			throw new NodeOperationError(context.getNode(), 'Start From must be a date and time such as 2026-03-01 00:00');
		}
		const iso = new Date(instant).toISOString();
		state = emptyState(iso, iso);
	} else {
		const [newest] = await listBookings(context, { sort: '-updatedAt' }, 1);
		// An account without bookings: everything that appears from now on is new.
		state = newest === undefined ? emptyState(null, new Date(0).toISOString()) : emptyState(newest.updatedAt, newest.updatedAt);
		if (newest !== undefined) state.snapshots[newest.id] = snapshotOf(newest);
	}
	for (const booking of inFlight) state.snapshots[booking.id] = snapshotOf(booking);
	return state;
}

/**
 * A manual run: the most recent change that matches, among the latest ones (judged by what each booking shows: no
 * snapshots here); the production position is not touched. No time window: n8n's clock and the service's may differ.
 */
async function sampleEvent(
	context: IPollFunctions,
	events: string[],
	eventTypeIds: string[],
): Promise<BookingEvent<Booking>> {
	const recent = await listBookings(context, { sort: '-updatedAt' }, SAMPLE_BOOKINGS);
	for (const booking of recent) {
		const event = eventFor(booking, undefined, Number.NEGATIVE_INFINITY);
		if (isWanted(event, events, eventTypeIds)) return event;
	}
	throw new NodeOperationError(context.getNode(), `None of the ${SAMPLE_BOOKINGS} most recently changed bookings matches this trigger's events`, {
		description:
			'Make or change a booking (in the app, or with the Booking Service node), then fetch a test event again. A manual run reads recent changes only; it never moves the position the active trigger polls from.',
	});
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
		credentials: [{ name: BOOKING_SERVICE_CREDENTIAL_TYPE, required: true }],
		properties: [
			{
				displayName:
					'Checks the service for changed bookings at the times set below: works on any n8n, no public URL needed, and events arrive up to one interval late. With a public https URL, the Booking Service Trigger delivers them at once instead. A "Read only" key is enough.',
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
						description:
							"For a first sync: on activation, report changes made since this time instead of starting from now. Read in the workflow's time zone when it has no offset. Only used when the trigger has no position yet.",
					},
				],
			},
		],
	};

	methods = { listSearch: { searchEventTypes } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const events = (this.getNodeParameter('events', []) as string[]).filter((event) => typeof event === 'string');
		if (events.length === 0) throw new NodeOperationError(this.getNode(), 'Choose at least one event to listen for');
		const options = this.getNodeParameter('options', {}) as Options;
		const eventTypeIds = readEventTypesFilter(options.eventTypes);
		const nameLanguage = options.nameLanguage ?? 'service';

		if (this.getMode() === 'manual') {
			return [this.helpers.returnJsonArray([toItem(await sampleEvent(this, events, eventTypeIds), nameLanguage)])];
		}

		const nodeData = this.getWorkflowStaticData('node');
		const owner = { workflowId: String(this.getWorkflow().id ?? ''), nodeId: this.getNode().id };
		let state = readPollState(nodeData, owner);
		if (state === undefined) {
			const startFrom = options.startFrom === null || options.startFrom === '' ? undefined : options.startFrom;
			state = await startingState(this, startFrom);
			if (startFrom === undefined) {
				// Nothing to report yet: the trigger starts watching from here.
				writePollState(nodeData, owner, state);
				return null;
			}
		}

		// A failure throws before the state is touched: the next poll asks from the same position, nothing is lost.
		const updatedSince = updatedSinceFor(state);
		const bookings = await listBookings(this, { sort: '-updatedAt', ...(updatedSince ? { updatedSince } : {}) });
		const detected = detectChanges(state, bookings);
		writePollState(nodeData, owner, detected.state);
		const items = detected.events
			.filter((event) => isWanted(event, events, eventTypeIds))
			.map((event) => toItem(event, nameLanguage));
		return items.length === 0 ? null : [this.helpers.returnJsonArray(items)];
	}
}

