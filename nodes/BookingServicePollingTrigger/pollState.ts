// The polling trigger's position in static data, bound to the owning workflow and node (a copy starts from its own
// activation). n8n saves static data only after a poll that emitted items; a quiet poll's lost progress costs nothing.
import type { IDataObject } from 'n8n-workflow';

import type { PollState } from './changes';
import { time, trimKnown } from './known';
import type { Scan } from './scan';

interface Owner {
	workflowId: string;
	nodeId: string;
}

/** 2: one encoded state per booking and a resumable scan (format 1 was never published). */
const FORMAT = 2;

/** A time as the service writes them, or null; anything else in stored state means the state is not ours. */
const isTime = (value: unknown): value is string | null =>
	value === null || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));

export function readPollState(nodeData: IDataObject, owner: Owner): PollState | undefined {
	const stored = nodeData.poll as Record<string, unknown> | undefined;
	if (typeof stored !== 'object' || stored === null || stored.format !== FORMAT) return undefined;
	if (stored.workflowId !== owner.workflowId || stored.nodeId !== owner.nodeId) return undefined;
	const { cursor, since, known, scan, forgotten = null } = stored;
	if (!isTime(cursor) || !isTime(since) || !isTime(forgotten)) return undefined;
	const state: PollState = {
		cursor,
		since,
		forgotten,
		known: trimKnown(typeof known === 'object' && known !== null ? (known as PollState['known']) : {}, time(cursor)),
	};
	const validScan = readScan(scan);
	if (validScan) state.scan = validScan;
	return state;
}

export function writePollState(nodeData: IDataObject, owner: Owner, state: PollState): void {
	nodeData.poll = { format: FORMAT, ...owner, ...state } as unknown as IDataObject;
}

function readScan(value: unknown): Scan | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const scan = value as Record<string, unknown>;
	const valid =
		isTime(scan.from) &&
		isTime(scan.top) &&
		isTime(scan.floor) &&
		typeof scan.discovering === 'boolean' &&
		Array.isArray(scan.marks) &&
		scan.marks.length > 0 &&
		scan.marks.every((mark) => typeof mark === 'string') &&
		(scan.edge === undefined || (Array.isArray(scan.edge) && scan.edge.every((id) => typeof id === 'string')));
	return valid ? ({ ...scan, edge: scan.edge ?? [] } as unknown as Scan) : undefined;
}
