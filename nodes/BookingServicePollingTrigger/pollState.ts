/**
 * The polling trigger's position in the node's static data, bound to the workflow and node that own it: a copy of the
 * workflow (static data travels with exports and the public API) starts watching from its own activation instead of
 * continuing the original's position.
 *
 * n8n saves static data only after a poll that emitted items. A quiet poll's progress is therefore lost on a restart,
 * and the next poll asks again from the last saved position: what the quiet polls handled emitted nothing, so asking
 * again emits nothing again (the changes it holds are recognised or still not wanted), and nothing is lost.
 */
import type { IDataObject } from 'n8n-workflow';

import { bounded } from './changes';
import type { PollState } from './changes';

interface Owner {
	workflowId: string;
	nodeId: string;
}

const FORMAT = 1;

export function readPollState(nodeData: IDataObject, owner: Owner): PollState | undefined {
	const stored = nodeData.poll as Record<string, unknown> | undefined;
	if (typeof stored !== 'object' || stored === null || stored.format !== FORMAT) return undefined;
	if (stored.workflowId !== owner.workflowId || stored.nodeId !== owner.nodeId) return undefined;
	const { cursor, since, snapshots } = stored;
	if (!(cursor === null || typeof cursor === 'string') || !(since === null || typeof since === 'string')) {
		return undefined;
	}
	return bounded({
		cursor,
		since,
		snapshots: typeof snapshots === 'object' && snapshots !== null ? (snapshots as PollState['snapshots']) : {},
	});
}

export function writePollState(nodeData: IDataObject, owner: Owner, state: PollState): void {
	nodeData.poll = { format: FORMAT, ...owner, ...state } as unknown as IDataObject;
}
