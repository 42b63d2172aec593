// The trigger's subscription records in node static data (n8n keeps a separate copy for a test run). Static data
// travels with exports and copies of the workflow: hence `sealedSecret`, never the secret, and an owner in every
// record — a record another workflow, node or n8n instance wrote is never acted on, only forgotten.
import type { IDataObject, IHookFunctions, INode } from 'n8n-workflow';

import { ALL_EVENTS } from '../shared/booking';
import { isResourceId } from '../shared/resourceId';

/** The contract's limits for POST /webhooks. */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 25;
const MAX_DESCRIPTION_LENGTH = 200;
/** One per possible subscription is plenty; beyond that the oldest are given up on (and logged). */
const MAX_LEFTOVERS = MAX_SUBSCRIPTIONS_PER_ACCOUNT;

/** instanceId tells apart two n8n instances holding one workflow (an import keeps workflow and node ids). */
export interface Owner {
	workflowId: string;
	nodeId: string;
	instanceId?: string;
}

/** Where a subscription lives: the service at a Base URL, and the account there (from GET /me, when known). */
export interface AccountRef {
	baseUrl: string;
	accountId?: string;
}

export interface StoredSubscription extends Owner, AccountRef {
	id: string;
	webhookUrl: string;
	/** As sent to the service, normalised by `normaliseEventSelection`. */
	events: string[];
	sealedSecret: string;
	/** The service's creation time of the subscription: events made from then on are delivered to it. */
	createdAt?: string;
}

/**
 * A subscription whose DELETE failed (retried on activation), or one draining after a key rotation: kept until
 * `drainUntil` so the service's retries of events made before `replacedAt` still run once.
 */
export interface LeftoverSubscription extends Owner, AccountRef {
	id: string;
	/** Sealed under the API key of the time; deliveries signed with it prove the subscription is ours. */
	sealedSecret?: string;
	drainUntil?: string;
	/** The replacement's creation time; unset while no replacement exists (all of its events are then wanted). */
	replacedAt?: string;
	/** A draining one's URL and events (targetOf): when no replacement fits in the account, it is kept in use. */
	target?: string;
}

export function targetOf(webhookUrl: string, events: string[]): string {
	return JSON.stringify([webhookUrl, events]);
}

/** How a record relates to a trigger node: its own, another's, or written without an instance id (older versions). */
export type Ownership = 'ours' | 'foreign' | 'instance-unknown';

export function ownershipOf(record: Owner, owner: Owner): Ownership {
	if (record.workflowId !== owner.workflowId || record.nodeId !== owner.nodeId) return 'foreign';
	if (record.instanceId === undefined || owner.instanceId === undefined) return 'instance-unknown';
	return record.instanceId === owner.instanceId ? 'ours' : 'foreign';
}

export function isOwnedBy(record: Owner, owner: Owner): boolean {
	return ownershipOf(record, owner) !== 'foreign';
}

/** `*` alone covers every kind; sorted, so reordering the selection in the editor is not a change of subscription. */
export function normaliseEventSelection(selected: unknown): string[] {
	const values = Array.isArray(selected) ? selected.filter((value): value is string => typeof value === 'string') : [];
	if (values.includes(ALL_EVENTS)) return [ALL_EVENTS];
	return [...new Set(values)].sort();
}

function optionalStrings<K extends string>(record: Record<string, unknown>, keys: K[]): Partial<Record<K, string>> {
	return Object.fromEntries(
		keys.filter((key) => typeof record[key] === 'string').map((key) => [key, record[key]]),
	) as Partial<Record<K, string>>;
}

function readOwnerAndAccount(record: Record<string, unknown>): (Owner & AccountRef) | undefined {
	const { workflowId, nodeId, baseUrl } = record;
	if (typeof workflowId !== 'string' || typeof nodeId !== 'string' || typeof baseUrl !== 'string') return undefined;
	return { workflowId, nodeId, baseUrl, ...optionalStrings(record, ['instanceId', 'accountId']) };
}

/** A record without an owner (0.1.0) gets an empty owner, which no node matches, so it is never acted on. */
export function readStoredSubscription(nodeData: IDataObject): StoredSubscription | undefined {
	const stored = nodeData.subscription as Record<string, unknown> | undefined;
	if (typeof stored !== 'object' || stored === null) return undefined;
	const { id, webhookUrl, events, sealedSecret } = stored;
	if (!isResourceId(id) || typeof webhookUrl !== 'string' || typeof sealedSecret !== 'string') return undefined;
	if (!Array.isArray(events)) return undefined;
	const ownerAndAccount = readOwnerAndAccount(stored) ?? { workflowId: '', nodeId: '', baseUrl: '' };
	const createdAt = optionalStrings(stored, ['createdAt']);
	return { id, webhookUrl, events: normaliseEventSelection(events), sealedSecret, ...ownerAndAccount, ...createdAt };
}

export function storeSubscription(nodeData: IDataObject, subscription: StoredSubscription): void {
	nodeData.subscription = { ...subscription };
	// Earlier versions' record of event ids, written by webhook() (which now writes nothing): not read any more.
	delete nodeData.recentEventIds;
}

export function forgetSubscription(nodeData: IDataObject): void {
	delete nodeData.subscription;
	delete nodeData.recentEventIds;
}

export function sameSubscriptionTarget(stored: StoredSubscription, webhookUrl: string, events: string[]): boolean {
	return stored.webhookUrl === webhookUrl && stored.events.join(',') === events.join(',');
}

/** This node's leftovers; anything else found there (a copy's, or 0.1.0's bare ids) is not ours to delete. */
export function readLeftoverSubscriptions(nodeData: IDataObject, owner: Owner): LeftoverSubscription[] {
	const entries = Array.isArray(nodeData.leftoverSubscriptions) ? (nodeData.leftoverSubscriptions as unknown[]) : [];
	const leftovers: LeftoverSubscription[] = [];
	for (const entry of entries) {
		if (typeof entry !== 'object' || entry === null) continue;
		const record = entry as Record<string, unknown>;
		const ownerAndAccount = readOwnerAndAccount(record);
		if (!isResourceId(record.id) || ownerAndAccount === undefined || !isOwnedBy(ownerAndAccount, owner)) continue;
		leftovers.push({
			id: record.id,
			...ownerAndAccount,
			...optionalStrings(record, ['sealedSecret', 'drainUntil', 'replacedAt', 'target']),
		});
	}
	return leftovers;
}

function leftoverRecord(leftover: LeftoverSubscription): IDataObject {
	const { id, workflowId, nodeId, baseUrl } = leftover;
	const optional = optionalStrings(leftover as unknown as Record<string, unknown>, [
		'instanceId',
		'accountId',
		'sealedSecret',
		'drainUntil',
		'replacedAt',
		'target',
	]);
	return { id, workflowId, nodeId, baseUrl, ...optional };
}

/** Keeps at most MAX_LEFTOVERS, the newest; returns the ones given up on, for the log. */
export function storeLeftoverSubscriptions(
	nodeData: IDataObject,
	leftovers: LeftoverSubscription[],
): LeftoverSubscription[] {
	const unique = [...new Map(leftovers.map((leftover) => [leftover.id, leftover])).values()];
	const kept = unique.slice(-MAX_LEFTOVERS);
	delete nodeData.leftoverSubscriptionIds; // 0.1.0's format: bare ids of unknown owner, never acted on
	if (kept.length === 0) delete nodeData.leftoverSubscriptions;
	else nodeData.leftoverSubscriptions = kept.map(leftoverRecord);
	return unique.slice(0, unique.length - kept.length);
}

/** Shown in the service's list, so a person can tell which workflow a subscription feeds (even an orphaned one). */
export function subscriptionDescription(
	workflow: { id?: string; name?: string },
	node: INode,
	isTest: boolean,
	createdAt: Date,
): string {
	const name = workflow.name?.trim() || 'unnamed workflow';
	const suffix = ` – ${node.name}${isTest ? ' (test URL)' : ''} – workflow ${workflow.id ?? '?'}, ${createdAt.toISOString().slice(0, 16)}Z`;
	const prefix = 'n8n: ';
	const room = MAX_DESCRIPTION_LENGTH - prefix.length - suffix.length;
	const fitted = name.length <= room ? name : `${name.slice(0, Math.max(0, room - 1))}…`;
	return `${prefix}${fitted}${suffix}`.slice(0, MAX_DESCRIPTION_LENGTH);
}

export function isTestSubscription(context: IHookFunctions): boolean {
	return context.getMode() === 'manual';
}
