// The polling trigger's position in static data, bound to the owning workflow and node (a copy starts from its own
// activation). n8n saves static data after the activation poll and after a poll that emitted items (its durable
// scheduler: after every poll); a quiet poll's lost progress costs nothing.
import type { IDataObject } from 'n8n-workflow';

import type { PollState } from './changes';
import { keyOf } from './known';
import type { Scan } from './scanState';

interface Owner {
	workflowId: string;
	nodeId: string;
}

/** 2: one encoded state per booking and a resumable scan (format 1 was never published). */
const FORMAT = 2;

/** A time as the service writes them, or null; anything else in stored state means the state is not ours. */
const isTime = (value: unknown): value is string | null =>
	value === null || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));

/** Whether the stored position was written by this trigger (readable or not); a copied workflow's is not. */
export function isOwnPollState(nodeData: IDataObject, owner: Owner): boolean {
	const stored = nodeData.poll as Record<string, unknown> | undefined;
	return (
		typeof stored === 'object' &&
		stored !== null &&
		stored.workflowId === owner.workflowId &&
		stored.nodeId === owner.nodeId
	);
}

export function readPollState(nodeData: IDataObject, owner: Owner): PollState | undefined {
	const stored = nodeData.poll as Record<string, unknown> | undefined;
	if (!isOwnPollState(nodeData, owner) || stored?.format !== FORMAT) return undefined;
	const { cursor, since, known, scan, forgotten = null, settledTo = null, settling = null } = stored;
	if (!isTime(cursor) || !isTime(since) || !isTime(forgotten) || !isTime(settledTo)) return undefined;
	const state: PollState = { cursor, since, forgotten, known: readKnown(known) };
	if (settledTo !== null) state.settledTo = settledTo;
	const { newest, readAt } = (settling ?? {}) as Record<string, unknown>;
	if (typeof newest === 'string' && isTime(newest) && typeof readAt === 'number') state.settling = { newest, readAt };
	const validScan = readScan(scan);
	if (validScan) state.scan = validScan;
	return state;
}

/** Keys as keyOf writes them (a state saved before used the ids as they are). */
function readKnown(known: unknown): PollState['known'] {
	if (typeof known !== 'object' || known === null) return {};
	return Object.fromEntries(Object.entries(known).map(([id, entry]) => [keyOf(id), entry])) as PollState['known'];
}

export function writePollState(nodeData: IDataObject, owner: Owner, state: PollState): void {
	nodeData.poll = { format: FORMAT, ...owner, ...state } as unknown as IDataObject;
}

/**
 * The position taken at activation, also kept in the workflow's own static data: on n8n's durable scheduler the poll
 * at activation is a test poll whose cursor n8n keeps only if it emitted, while the workflow's static data is saved
 * after it either way. The first scheduled poll that finds no position of its own starts from here.
 */
const startKey = (owner: Owner) => `pollingTriggerStart:${owner.nodeId}`;

export function readStartState(globalData: IDataObject, owner: Owner): PollState | undefined {
	return readPollState({ poll: globalData[startKey(owner)] } as IDataObject, owner);
}

export function writeStartState(globalData: IDataObject, owner: Owner, state: PollState): void {
	const holder: IDataObject = {};
	writePollState(holder, owner, state);
	globalData[startKey(owner)] = holder.poll;
}

/** Once the trigger has a position of its own, the activation's is not needed again. */
export function dropStartState(globalData: IDataObject, owner: Owner): void {
	if (globalData[startKey(owner)] !== undefined) delete globalData[startKey(owner)];
}

function readScan(value: unknown): Scan | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const scan = value as Record<string, unknown>;
	const valid =
		isTime(scan.from) &&
		isTime(scan.top) &&
		isTime(scan.floor) &&
		isTime(scan.forgotten ?? null) &&
		typeof scan.discovering === 'boolean' &&
		Array.isArray(scan.marks) &&
		scan.marks.length > 0 &&
		scan.marks.every((mark) => typeof mark === 'string') &&
		(scan.topSettles === undefined || typeof scan.topSettles === 'boolean') &&
		(scan.edge === undefined || (Array.isArray(scan.edge) && scan.edge.every((id) => typeof id === 'string')));
	return valid ? ({ ...scan, edge: scan.edge ?? [] } as unknown as Scan) : undefined;
}
