import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../../../shared/transport';
import { ItemParameters } from '../../helpers/validation';
import { optionsCollection, timeoutOption } from '../common.descriptions';
import { readTimeoutMs } from '../sharedOptions';

const properties: INodeProperties[] = [optionsCollection([timeoutOption])];

export const description = updateDisplayOptions(
	{ show: { resource: ['account'], operation: ['get'] } },
	properties,
);

interface Input {
	timeoutMs: number | undefined;
}

export function prepare(this: IExecuteFunctions, itemIndex: number): Input {
	return { timeoutMs: readTimeoutMs(new ItemParameters(this, itemIndex)) };
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	input: Input,
): Promise<IDataObject> {
	return (await bookingServiceApiRequest.call(
		this,
		{ method: 'GET', path: '/me', timeoutMs: input.timeoutMs },
		itemIndex,
	)) as IDataObject;
}
