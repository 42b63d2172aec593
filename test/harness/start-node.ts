/**
 * The workflow's first node in engine tests. n8n-nodes-base (Manual Trigger, …) is not installed, so this test-only
 * node stands in: the harness hands it the start items and it passes them on unchanged, each paired with itself.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

export const START_NODE_TYPE = 'test.start';

export class StartNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Start (test)',
		name: START_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Emits the items the test harness gives it',
		defaults: { name: 'Start' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((item, index) => ({ json: item.json, pairedItem: { item: index } })),
		];
	}
}
