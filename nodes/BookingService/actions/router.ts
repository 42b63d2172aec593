// The node's one item loop, in two passes: every item's parameters are read and checked (`prepare`), then requests are
// sent (`execute`), so bad input fails the node before a request goes out — a batch is never half-sent for a typo
// (with Continue On Fail, that item becomes an error item).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { messageForAgent, runsAsAgentTool } from '../../shared/agentAdvice';
import * as account from './account';
import * as booking from './booking';
import * as eventType from './eventType';
import * as invite from './invite';
import * as webhookSubscription from './webhookSubscription';

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

// The error item's `json` holds only `error`: n8n 1.x up to 2.35 route an item to the error output only for
// `json.error` alone (or beside `message`), 2.36+ also `details`. Setting the item's own `error` also routes it, but
// n8n 2.x then replaces `json` with the bare message and the description and HTTP code are lost.
function failedItem(
	this: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): INodeExecutionData[] {
	const nodeError = asNodeError.call(this, error, itemIndex);
	if (!this.continueOnFail()) throw nodeError;
	return [{ json: { error: errorSummary(nodeError) }, pairedItem: { item: itemIndex } }];
}

/** What an error item says: the message and what to do, and for refusals the HTTP status and the service's code. */
function errorSummary(nodeError: NodeApiError | NodeOperationError): IDataObject {
	const summary: IDataObject = { message: nodeError.message };
	if (nodeError.description) summary.description = nodeError.description;
	if (nodeError instanceof NodeApiError) {
		summary.httpCode = nodeError.httpCode ?? null;
		const { serviceErrorCode, serviceErrorDetails } = nodeError.context;
		if (typeof serviceErrorCode === 'string') summary.code = serviceErrorCode;
		if (Array.isArray(serviceErrorDetails)) summary.fields = serviceErrorDetails as IDataObject[];
	}
	return summary;
}

function asNodeError(
	this: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	const nodeError =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(this.getNode(), error as Error, { itemIndex });
	nodeError.context.itemIndex ??= itemIndex;
	// A model reads only the message: as a tool, the node adds what a chatbot should do next.
	if (runsAsAgentTool(this.getNode())) nodeError.message = messageForAgent(nodeError);
	return nodeError;
}
