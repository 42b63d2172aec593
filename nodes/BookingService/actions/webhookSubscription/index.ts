import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteOperation from './delete.operation';

// `delete` is a reserved word, so the module is imported under another name and exported as `delete`.
export { create, deleteOperation as delete };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhookSubscription'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Subscribe a URL to booking events. The output includes the signing secret, shown only this once.',
				action: 'Create a webhook subscription',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a webhook subscription by its ID; no more events are sent to it',
				action: 'Delete a webhook subscription',
			},
		],
		default: 'create',
	},
	...create.description,
	...deleteOperation.description,
];
