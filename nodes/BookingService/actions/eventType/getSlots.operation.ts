import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { adviseAgent } from '../../../shared/agentAdvice';
import { bookingServiceApiRequest } from '../../../shared/transport';
import type { DayNumber } from '../../../shared/time';
import {
	formatCalendarDate,
	formatInZone,
	formatUtc,
	splitIntoWindows,
	startOfDay,
} from '../../../shared/time';
import { DAY_HINT, eventTypeLocator } from '../../../shared/descriptions';
import { slotsByLocalDay } from '../../helpers/slotsByDay';
import { ItemParameters } from '../../helpers/validation';
import {
	optionsCollection,
	timeoutOption,
	timeZoneNotice,
	timeZoneOption,
} from '../common.descriptions';
import { readTimeoutMs } from '../sharedOptions';

/** The service's limit per request. Counted inclusively (the stricter reading), so either reading of it is met. */
const MAX_DAYS_PER_REQUEST = 31;
/** Three years of days per item keeps the number of requests per item bounded (≤ 37) whatever the input. */
const MAX_RANGE_DAYS = 1096;

const properties: INodeProperties[] = [
	timeZoneNotice,
	eventTypeLocator,
	{
		displayName: 'From',
		name: 'from',
		type: 'string',
		default: "={{ $today.toFormat('yyyy-MM-dd') }}",
		required: true,
		placeholder: 'e.g. 2026-03-02',
		hint: DAY_HINT,
		description:
			"First day to look at (YYYY-MM-DD), included. Days run from midnight to midnight in the workflow's time zone, or in the Time Zone option (under Options).",
	},
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: "={{ $today.plus({ days: 6 }).toFormat('yyyy-MM-dd') }}",
		required: true,
		placeholder: 'e.g. 2026-03-31',
		hint: DAY_HINT,
		description:
			'Last day to look at (YYYY-MM-DD), included. Any range up to three years works: the node asks the service in 31-day steps and merges the answers.',
	},
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		default: 'oneItem',
		options: [
			{
				name: 'One Item With All Slots',
				value: 'oneItem',
				description: 'The slots as a list in one item per input item',
			},
			{
				name: 'One Item per Slot',
				value: 'itemPerSlot',
				description: 'Each free start time as its own item, e.g. to offer them in a form or a message',
			},
			{
				name: 'Local Times by Day (Compact, for AI Agents)',
				value: 'byDay',
				description:
					"One item with each day's free start times in the time zone, with the weekday and UTC offset (09:00 UTC+01:00): about a third of the size. A day and a time joined with T, e.g. 2026-03-02T09:00 UTC+01:00, are a Start that Create accepts.",
			},
		],
	},
	optionsCollection([
		{
			displayName: 'Require Calendar Check',
			name: 'failWhenCalendarBlocked',
			type: 'boolean',
			default: false,
			description:
				"Whether to fail when the host's connected calendar could not be reached, instead of returning slots that may include busy times. Turn this on for unattended booking.",
		},
		timeZoneOption,
		timeoutOption,
	]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['eventType'], operation: ['getSlots'] } },
	properties,
);

const OUTPUTS = ['oneItem', 'itemPerSlot', 'byDay'] as const;
type Output = (typeof OUTPUTS)[number];

interface Input {
	eventTypeId: string;
	from: DayNumber;
	to: DayNumber;
	timeZone: string;
	output: Output;
	failWhenCalendarBlocked: boolean;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	const from = parameters.requiredCalendarDate('from', 'From');
	const to = parameters.requiredCalendarDate('to', 'To');
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
		timeZone: parameters.dateTimeZone(),
		output: parameters.oneOf('output', 'Output', OUTPUTS, 'oneItem'),
		failWhenCalendarBlocked:
			parameters.optionalBoolean(
				'options.failWhenCalendarBlocked',
				'Require Calendar Check',
			) ?? false,
		timeoutMs: readTimeoutMs(parameters),
	};
}

interface SlotsAnswer {
	slots: string[];
	calendarBlocked: boolean;
}

/**
 * How the service reads `from`/`to` (in which zone its days start) is not shown in the contract, and neither is the
 * effect of `timezone`. Zones are at most 26 hours apart (UTC-12 to UTC+14), so the service's day for a date can
 * start up to 26 hours before or after ours: the node asks for two extra days on each side and keeps exactly the
 * slots that start within the requested days in the requested zone. The result is the same whatever the service's
 * reading; windows are merged in order and a slot seen twice is kept once.
 */
export const PADDING_DAYS = 2;

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject | IDataObject[]> {
	const zone = input.timeZone;
	const rangeStart = startOfDay(input.from, zone);
	const rangeEnd = startOfDay(input.to + 1, zone);
	const slotInstants = new Set<number>();
	let calendarBlocked = false;

	const windows = splitIntoWindows(
		input.from - PADDING_DAYS,
		input.to + PADDING_DAYS,
		MAX_DAYS_PER_REQUEST,
	);
	for (const window of windows) {
		const qs: IDataObject = {
			from: formatCalendarDate(window.from),
			to: formatCalendarDate(window.to),
			timezone: zone,
		};
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
		const error = new NodeOperationError(
			this.getNode(),
			"The host's calendar could not be reached, so these slots may include busy times: try again later",
			{
				itemIndex,
				description:
					'The service reported calendarBlocked. Try again later, or turn off "Require Calendar Check" to accept possibly optimistic slots.',
			},
		);
		throw adviseAgent(error, 'Tell the customer free times cannot be checked right now and to try again a little later; offer no times.');
	}

	if (calendarBlocked) {
		this.addExecutionHints({
			message:
				"The host's calendar could not be reached, so some of these slots may be busy. Don't book them unattended; turn on \"Require Calendar Check\" to stop instead.",
			type: 'warning',
			location: 'outputPane',
		});
	}

	const instants = [...slotInstants].sort((a, b) => a - b);
	if (input.output === 'byDay') {
		return {
			timeZone: zone,
			from: formatCalendarDate(input.from),
			to: formatCalendarDate(input.to),
			calendarBlocked,
			slotCount: instants.length,
			days: slotsByLocalDay(instants, zone),
		};
	}
	if (input.output === 'itemPerSlot') {
		return instants.map((instant) => ({
			eventTypeId: input.eventTypeId,
			slot: formatUtc(instant),
			localSlot: formatInZone(instant, zone),
			timeZone: zone,
			calendarBlocked,
		}));
	}
	return {
		eventTypeId: input.eventTypeId,
		from: formatCalendarDate(input.from),
		to: formatCalendarDate(input.to),
		timeZone: zone,
		calendarBlocked,
		slotCount: instants.length,
		slots: instants.map(formatUtc),
		localSlots: instants.map((instant) => formatInZone(instant, zone)),
	};
}
