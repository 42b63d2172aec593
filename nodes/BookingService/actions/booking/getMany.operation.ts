import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { BOOKING_STATUS_NAMES } from '../../../shared/booking';
import type { Booking, BookingStatus } from '../../../shared/booking';
import { eventTypeLocator, nameLanguageOption, PICKED_TIME_HINT_WITH_OPTION } from '../../../shared/descriptions';
import { iterateListItems, listAllPages } from '../../../shared/paging';
import type { ListAllPagesOptions } from '../../../shared/paging';
import { presentListedBooking } from '../../helpers/bookingOutput';
import type { BookingOutput } from '../../helpers/bookingOutput';
import { mergeSorted } from '../../helpers/mergeSorted';
import { ItemParameters } from '../../helpers/validation';
import {
	limitField,
	optionsCollection,
	returnAllField,
	simplifyField,
	timeoutOption,
	timeZoneNotice,
	timeZoneOption,
} from '../common.descriptions';
import { readBookingOutput, readLimit, readTimeoutMs } from '../sharedOptions';

const STATUSES = Object.keys(BOOKING_STATUS_NAMES) as BookingStatus[];
const SORTS = ['-createdAt', 'start', '-start', '-updatedAt'] as const;
type Sort = (typeof SORTS)[number];

const dateTimeFilter = (
	displayName: string,
	name: string,
	description: string,
): INodeProperties => ({
	displayName,
	name,
	type: 'dateTime',
	default: '',
	hint: PICKED_TIME_HINT_WITH_OPTION,
	description: `${description} A value without Z or an offset is read in the workflow's time zone, or in the Time Zone option (under Options)`,
});

const properties: INodeProperties[] = [
	timeZoneNotice,
	returnAllField,
	limitField,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add filter',
		default: {},
		options: [
			{
				displayName: 'Booker Email',
				name: 'email',
				type: 'string',
				default: '',
				placeholder: 'e.g. jane@example.com',
				description: "Only bookings made by this customer's email address",
			},
			{
				...eventTypeLocator,
				required: false,
				description: 'Only bookings of this event type',
				// n8n checks a collection's fields against the node's top level, where Create, Get Available Slots and
				// Invite have their own Event Type: without this, their By ID problem is listed twice.
				displayOptions: { show: { '/resource': ['booking'], '/operation': ['getMany'] } },
			},
			dateTimeFilter('Start From', 'startFrom', 'Only bookings starting at or after this time.'),
			dateTimeFilter('Start To', 'startTo', 'Only bookings starting at or before this time.'),
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				default: [],
				description:
					'Only bookings in these statuses. Empty: every status except Held and Awaiting Payment (the service default).',
				options: [
					{ name: 'Awaiting Payment', value: 'awaiting_payment' },
					{ name: 'Cancelled', value: 'cancelled' },
					{ name: 'Completed', value: 'completed' },
					{ name: 'Confirmed', value: 'confirmed' },
					{ name: 'Held', value: 'held' },
					{ name: 'No-Show', value: 'no_show' },
				],
			},
			dateTimeFilter(
				'Updated Since',
				'updatedSince',
				'Only bookings changed at or after this time.',
			),
		],
	},
	simplifyField,
	optionsCollection([nameLanguageOption, timeZoneOption, timeoutOption]),
	{
		displayName: 'Sort',
		name: 'sort',
		type: 'collection',
		placeholder: 'Add sort order',
		default: {},
		options: [
			{
				displayName: 'Order',
				name: 'order',
				type: 'options',
				default: '-createdAt',
				description: 'The order the service returns bookings in; without it, newest first',
				options: [
					{ name: 'Newest First', value: '-createdAt' },
					{ name: 'Recently Updated First', value: '-updatedAt' },
					{ name: 'Start Time, Earliest First', value: 'start' },
					{ name: 'Start Time, Latest First', value: '-start' },
				],
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['booking'], operation: ['getMany'] } },
	properties,
);

interface Input {
	filters: IDataObject;
	statuses: string[];
	sort: Sort;
	limit: number | undefined;
	output: BookingOutput;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	const filters: IDataObject = {};
	const eventTypeId = parameters.optionalResourceLocatorId('filters.eventType', 'Event Type');
	if (eventTypeId !== undefined) filters.eventTypeId = eventTypeId;
	const email = parameters.optionalEmail('filters.email', 'Booker Email');
	if (email !== undefined) filters.email = email;
	const startFrom = parameters.optionalUtcDateTime('filters.startFrom', 'Start From');
	if (startFrom !== undefined) filters.startFrom = startFrom;
	const startTo = parameters.optionalUtcDateTime('filters.startTo', 'Start To');
	if (startTo !== undefined) filters.startTo = startTo;
	if (
		startFrom !== undefined &&
		startTo !== undefined &&
		Date.parse(startTo) < Date.parse(startFrom)
	) {
		throw parameters.invalid('Start To', `must not be before Start From (${startFrom})`);
	}
	const updatedSince = parameters.optionalUtcDateTime('filters.updatedSince', 'Updated Since');
	if (updatedSince !== undefined) filters.updatedSince = updatedSince;
	return {
		filters,
		statuses: parameters.listOf('filters.status', 'Status', STATUSES),
		sort: parameters.oneOf('sort.order', 'Sort', SORTS, '-createdAt'),
		limit: readLimit(parameters),
		output: readBookingOutput(parameters),
		timeoutMs: readTimeoutMs(parameters),
	};
}

/** The order each sort gives, so lists fetched separately can be merged into the order the service would give. */
function comparatorFor(sort: Sort): (a: Booking, b: Booking) => number {
	const field = sort.replace('-', '') as 'createdAt' | 'start' | 'updatedAt';
	const direction = sort.startsWith('-') ? -1 : 1;
	return (a, b) => direction * (Date.parse(a[field]) - Date.parse(b[field]));
}

/**
 * A single listing with each booking once, as the merge of several gives it: a booking can show up twice when the
 * listing changes while its pages are read. The first sighting is kept.
 */
function withoutRepeatedIds(bookings: Booking[]): Booking[] {
	const seen = new Set<string>();
	return bookings.filter((booking) => {
		if (seen.has(booking.id)) return false;
		seen.add(booking.id);
		return true;
	});
}

/**
 * How to ask for several statuses at once is not shown in the contract (comma list? repeated parameter?). One
 * status per request works whatever the answer, so with several statuses the node reads one listing per status
 * and merges them in the chosen sort order, each booking once. With none or one status it is a single listing,
 * read a page at a time: there is nothing to merge, so nothing needs to be taken one booking at a time.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject[]> {
	const listing = (status?: string): ListAllPagesOptions => ({
		path: '/bookings',
		qs: { ...input.filters, sort: input.sort, ...(status === undefined ? {} : { status }) },
		limit: input.limit,
		itemIndex,
		scope: 'bookings:read',
		timeoutMs: input.timeoutMs,
	});
	const bookings =
		input.statuses.length > 1
			? await mergeSorted(
					input.statuses.map(
						(status) => iterateListItems.call(this, listing(status)) as AsyncGenerator<Booking>,
					),
					{
						compare: comparatorFor(input.sort),
						keyOf: (booking) => booking.id,
						limit: input.limit,
					},
				)
			: withoutRepeatedIds(
					(await listAllPages.call(this, listing(input.statuses[0]))) as Booking[],
				);
	return bookings.map((booking) => presentListedBooking(booking, input.output));
}
