import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the account the API key belongs to, with its time zone, locale, plan and the scopes of the key',
				action: 'Get the account',
			},
		],
		default: 'get',
	},
	...get.description,
];
