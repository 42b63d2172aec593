import type { INodeProperties } from 'n8n-workflow';

import * as getMany from './getMany.operation';
import * as getSlots from './getSlots.operation';

export { getMany, getSlots };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['eventType'] } },
		options: [
			{
				name: 'Get Available Slots',
				value: 'getSlots',
				description:
					'Get the free start times of an event type between two dates, as UTC instants (and local times for a chosen time zone)',
				action: 'Get available slots of an event type',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'List the event types of the account (the things people can book), in the order the app shows them',
				action: 'Get many event types',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
	...getSlots.description,
];
