import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../../../shared/transport';
import type { DayNumber } from '../../helpers/time';
import {
	formatCalendarDate,
	formatInZone,
	formatUtc,
	splitIntoWindows,
	startOfDay,
} from '../../helpers/time';
import { ItemParameters } from '../../helpers/validation';
import {
	eventTypeLocator,
	optionsCollection,
	timeoutOption,
	timeZoneField,
} from '../common.descriptions';
import { readTimeoutMs } from '../sharedOptions';

/** The service's limit per request. Counted inclusively (the stricter reading), so either reading of it is met. */
const MAX_DAYS_PER_REQUEST = 31;
/** Three years of days per item keeps the number of requests per item bounded (≤ 37) whatever the input. */
const MAX_RANGE_DAYS = 1096;

const properties: INodeProperties[] = [
	eventTypeLocator,
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 2026-03-02',
		description:
			'First day to look at (YYYY-MM-DD), included. Days are read in the Time Zone option (UTC if not set).',
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 2026-03-31',
		description:
			'Last day to look at (YYYY-MM-DD), included. Any range up to three years works: the node asks the service in 31-day steps and merges the answers.',
	},
	optionsCollection([
		{
			displayName: 'Fail When Calendar Unreachable',
			name: 'failWhenCalendarBlocked',
			type: 'boolean',
			default: false,
			description:
				"Whether to fail instead of returning slots when the host's connected calendar could not be reached. Then the slots may include times that are actually busy, so turn this on for unattended booking.",
		},
		{
			...timeZoneField,
			displayName: 'Time Zone',
			default: '',
			description:
				'IANA time zone in which From and To are read and in which local slot times are returned (as localSlots). Without it, days are UTC days and only UTC times are returned.',
		},
		timeoutOption,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['eventType'], operation: ['getSlots'] } },
	properties,
);

interface Input {
	eventTypeId: string;
	from: DayNumber;
	to: DayNumber;
	timeZone: string | undefined;
	failWhenCalendarBlocked: boolean;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	const timeZone = parameters.optionalTimeZone('options.timeZone', 'Time Zone');
	const dayZone = timeZone ?? 'UTC';
	const from = parameters.requiredCalendarDate('from', 'From', dayZone);
	const to = parameters.requiredCalendarDate('to', 'To', dayZone);
	if (to < from)
		throw parameters.invalid('To', `must not be before From (${formatCalendarDate(from)})`);
	if (to - from + 1 > MAX_RANGE_DAYS) {
		throw parameters.invalid(
			'To',
			`must make a range of at most ${MAX_RANGE_DAYS} days (three years) with From; split longer ranges`,
		);
	}
	return {
		eventTypeId: parameters.requiredResourceLocatorId('eventType', 'Event Type'),
		from,
		to,
		timeZone,
		failWhenCalendarBlocked:
			parameters.optionalBoolean(
				'options.failWhenCalendarBlocked',
				'Fail When Calendar Unreachable',
			) ?? false,
		timeoutMs: readTimeoutMs(parameters),
	};
}

interface SlotsAnswer {
	slots: string[];
	calendarBlocked: boolean;
}

/**
 * How the service reads `from`/`to` (in which zone a day starts) is not shown in the contract, and neither is the
 * effect of `timezone`. So the node asks for one extra day on each side — covering any zone's offset — and keeps
 * exactly the slots that start within the requested days in the requested zone. The result is the same whatever
 * the service's reading; windows are merged in order and a slot seen twice is kept once.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	const zone = input.timeZone ?? 'UTC';
	const rangeStart = startOfDay(input.from, zone);
	const rangeEnd = startOfDay(input.to + 1, zone);
	const slotInstants = new Set<number>();
	let calendarBlocked = false;

	for (const window of splitIntoWindows(input.from - 1, input.to + 1, MAX_DAYS_PER_REQUEST)) {
		const qs: IDataObject = {
			from: formatCalendarDate(window.from),
			to: formatCalendarDate(window.to),
		};
		if (input.timeZone) qs.timezone = input.timeZone;
		const answer = (await bookingServiceApiRequest.call(
			this,
			{
				method: 'GET',
				path: `/event-types/${input.eventTypeId}/slots`,
				qs,
				scope: 'event_types:read',
				timeoutMs: input.timeoutMs,
			},
			itemIndex,
		)) as SlotsAnswer;
		calendarBlocked ||= answer.calendarBlocked === true;
		for (const slot of Array.isArray(answer.slots) ? answer.slots : []) {
			const instant = Date.parse(slot);
			if (!Number.isNaN(instant) && instant >= rangeStart && instant < rangeEnd)
				slotInstants.add(instant);
		}
	}

	if (calendarBlocked && input.failWhenCalendarBlocked) {
		throw new NodeOperationError(
			this.getNode(),
			"The host's calendar could not be reached, so these slots may include busy times",
			{
				itemIndex,
				description:
					'The service reported calendarBlocked. Try again later, or turn off "Fail When Calendar Unreachable" to accept possibly optimistic slots.',
			},
		);
	}

	if (calendarBlocked) {
		this.addExecutionHints({
			message:
				"The host's calendar could not be reached, so some of these slots may be busy. Don't book them unattended; turn on \"Fail When Calendar Unreachable\" to stop instead.",
			type: 'warning',
			location: 'outputPane',
		});
	}

	const instants = [...slotInstants].sort((a, b) => a - b);
	const result: IDataObject = {
		eventTypeId: input.eventTypeId,
		from: formatCalendarDate(input.from),
		to: formatCalendarDate(input.to),
		timeZone: zone,
		calendarBlocked,
		slotCount: instants.length,
		slots: instants.map(formatUtc),
	};
	if (input.timeZone) {
		result.localSlots = instants.map((instant) => formatInZone(instant, zone));
	}
	return result;
}
