import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { localizeEventType } from '../../../shared/booking';
import type { EventType, NameLanguage } from '../../../shared/booking';
import { nameLanguageOption } from '../../../shared/descriptions';
import { listAllPages } from '../../../shared/paging';
import { ItemParameters } from '../../helpers/validation';
import {
	limitField,
	optionsCollection,
	returnAllField,
	timeoutOption,
} from '../common.descriptions';
import { readLimit, readNameLanguage, readTimeoutMs } from '../sharedOptions';

const ACTIVE_FILTERS = ['true', 'false', 'all'] as const;
type ActiveFilter = (typeof ACTIVE_FILTERS)[number];

const properties: INodeProperties[] = [
	{
		displayName: 'Active',
		name: 'active',
		type: 'options',
		default: 'true',
		description:
			'Which event types to return: only bookable (active) ones, only inactive ones, or both',
		options: [
			{ name: 'Active Only', value: 'true' },
			{ name: 'Inactive Only', value: 'false' },
			{
				name: 'Active and Inactive',
				value: 'all',
				description: 'Active ones first, then inactive ones',
			},
		],
	},
	returnAllField,
	limitField,
	optionsCollection([nameLanguageOption, timeoutOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['eventType'], operation: ['getMany'] } },
	properties,
);

interface Input {
	active: ActiveFilter;
	limit: number | undefined;
	nameLanguage: NameLanguage;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	return {
		active: parameters.oneOf('active', 'Active', ACTIVE_FILTERS, 'true'),
		limit: readLimit(parameters),
		nameLanguage: readNameLanguage(parameters),
		timeoutMs: readTimeoutMs(parameters),
	};
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject[]> {
	// The service filters on one value of `active` at a time; "both" is two listings, in the app's order each.
	const activeValues = input.active === 'all' ? ['true', 'false'] : [input.active];
	const eventTypes: EventType[] = [];
	for (const active of activeValues) {
		const remaining = input.limit === undefined ? undefined : input.limit - eventTypes.length;
		if (remaining !== undefined && remaining <= 0) break;
		eventTypes.push(
			...((await listAllPages.call(this, {
				path: '/event-types',
				qs: { active },
				limit: remaining,
				itemIndex,
				scope: 'event_types:read',
				timeoutMs: input.timeoutMs,
			})) as EventType[]),
		);
	}
	return eventTypes.map((eventType) => localizeEventType(eventType, input.nameLanguage));
}
