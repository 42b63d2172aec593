import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../../../shared/transport';
import { ItemParameters } from '../../helpers/validation';
import { optionsCollection, timeoutOption } from '../common.descriptions';
import { readTimeoutMs } from '../sharedOptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Webhook Subscription ID',
		name: 'webhookSubscriptionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 65f1c0ffee0123456789abcd',
		description:
			'The ID returned when the subscription was created. Deletion takes effect immediately.',
	},
	optionsCollection([timeoutOption]),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhookSubscription'], operation: ['delete'] } },
	properties,
);

interface Input {
	id: string;
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	const parameters = new ItemParameters(this, itemIndex);
	return {
		id: parameters.requiredResourceId('webhookSubscriptionId', 'Webhook Subscription ID'),
		timeoutMs: readTimeoutMs(parameters),
	};
}

/**
 * The answer's status and body are not shown in the contract, so any 2xx means deleted. A subscription that does
 * not exist is an error here (unlike in the trigger, which only cleans up after itself): the user named it.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	await bookingServiceApiRequest.call(
		this,
		{
			method: 'DELETE',
			path: `/webhooks/${input.id}`,
			scope: 'webhooks:manage',
			timeoutMs: input.timeoutMs,
		},
		itemIndex,
	);
	return { deleted: true };
}
