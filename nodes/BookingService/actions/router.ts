/**
 * The one item loop of the Booking Service node. Operations never loop over items, catch errors or build output
 * items themselves; they only read one item's parameters (`prepare`) and call the service for it (`execute`).
 *
 * The loop runs in two passes: first every item's parameters are read and checked, then requests are sent. So when
 * any item has bad input the node fails before a single request goes out (unless Continue On Fail is on, in which
 * case that item becomes an error item and the others still run) — a batch of bookings is never half-sent because
 * item 7 had a typo.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as account from './account';
import * as booking from './booking';
import * as eventType from './eventType';
import * as invite from './invite';
import * as webhookSubscription from './webhookSubscription';

/**
 * What every `<operation>.operation.ts` exports besides its `description`. `prepare` reads and checks the item's
 * parameters and sends nothing; `execute` gets what `prepare` returned and calls the service.
 */
export interface OperationModule {
	prepare: (this: IExecuteFunctions, itemIndex: number) => unknown;
	// `never`: each module's execute takes exactly what its own prepare returned, which the router hands back as is.
	execute: (
		this: IExecuteFunctions,
		itemIndex: number,
		input: never,
	) => Promise<IDataObject | IDataObject[]>;
}

const OPERATIONS: Record<string, OperationModule | undefined> = {
	'account:get': account.get,
	'eventType:getMany': eventType.getMany,
	'eventType:getSlots': eventType.getSlots,
	'booking:getMany': booking.getMany,
	'booking:get': booking.get,
	'booking:create': booking.create,
	'booking:cancel': booking.cancel,
	'invite:create': invite.create,
	'webhookSubscription:create': webhookSubscription.create,
	'webhookSubscription:delete': webhookSubscription.delete,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = OPERATIONS[`${resource}:${operationName}`];
	if (operation === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" is not supported for resource "${resource}"`,
		);
	}

	const outputPerItem: INodeExecutionData[][] = items.map(() => []);
	const prepared: Array<{ itemIndex: number; input: unknown }> = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			prepared.push({ itemIndex, input: operation.prepare.call(this, itemIndex) });
		} catch (error) {
			outputPerItem[itemIndex] = failedItem.call(this, error, itemIndex);
		}
	}

	for (const { itemIndex, input } of prepared) {
		try {
			const result = await operation.execute.call(this, itemIndex, input as never);
			outputPerItem[itemIndex] = this.helpers.constructExecutionMetaData(
				this.helpers.returnJsonArray(result),
				{ itemData: { item: itemIndex } },
			);
		} catch (error) {
			outputPerItem[itemIndex] = failedItem.call(this, error, itemIndex);
		}
	}

	return [outputPerItem.flat()];
}

/** With Continue On Fail: one error item paired with the input item. Otherwise: the error, tied to the item. */
function failedItem(
	this: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): INodeExecutionData[] {
	const nodeError = asNodeError.call(this, error, itemIndex);
	if (!this.continueOnFail()) throw nodeError;
	const json: IDataObject = { error: nodeError.message };
	if (nodeError.description) json.description = nodeError.description;
	if (nodeError instanceof NodeApiError && nodeError.httpCode) json.httpCode = nodeError.httpCode;
	return [{ json, pairedItem: { item: itemIndex } }];
}

function asNodeError(
	this: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	return new NodeOperationError(this.getNode(), error as Error, { itemIndex });
}
