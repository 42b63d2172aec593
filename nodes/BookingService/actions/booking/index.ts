import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

export { cancel, create, get, getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['booking'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description:
					'Cancel a booking: the customer is emailed and a paid booking is refunded in full. Cancelling an already cancelled booking returns it unchanged.',
				action: 'Cancel a booking',
			},
			{
				name: 'Create',
				value: 'create',
				description:
					'Book a time for a customer on an event type. Fails with "no longer free" if someone else took the time.',
				action: 'Create a booking',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one booking by its ID',
				action: 'Get a booking',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description:
					'List bookings, newest first by default, filtered by status, event type, customer email, start time or last change',
				action: 'Get many bookings',
			},
		],
		default: 'getMany',
	},
	...cancel.description,
	...create.description,
	...get.description,
	...getMany.description,
];
