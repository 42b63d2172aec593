import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['invite'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Create a single-use booking link for an event type (also invite-only ones). The link URL is returned only now.',
				action: 'Create an invite link',
			},
		],
		default: 'create',
	},
	...create.description,
];
