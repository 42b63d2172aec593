// The trigger's records in node static data (n8n keeps a separate copy for a test run). Static data travels with
// exports, copies and imports into another n8n: hence `sealedSecret`, never the secret, and an owner in every record —
// a record another workflow, node or n8n instance wrote is never acted on, only forgotten.
import type { IDataObject, IHookFunctions, INode, IWebhookFunctions } from 'n8n-workflow';

import { ALL_EVENTS } from '../shared/booking';
import { isResourceId } from '../shared/resourceId';
import { setAsNewest } from '../shared/setAsNewest';
import { leftUndeleted } from './memory';

/** The contract's limits for POST /webhooks. */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 25;
const MAX_DESCRIPTION_LENGTH = 200;

/** An import into another n8n keeps workflow and node ids; the instance id tells the two apart. */
export type Owner = { workflowId: string; nodeId: string; instanceId: string };

/** A subscription this trigger made, and where it lives: the service at a Base URL, the account there (GET /me). */
export interface SubscriptionRecord extends Owner {
	id: string;
	baseUrl: string;
	accountId: string;
	/** Sealed under the API key of its creation (signingSecret.ts): a new key cannot open it. */
	sealedSecret: string;
}

export interface StoredSubscription extends SubscriptionRecord {
	webhookUrl: string;
	/** When the service made it (its clock): it never delivers an event from before. Absent before 9129bdf. */
	createdAt?: string;
	/** As sent to the service, normalised by `normaliseEventSelection`. */
	events: string[];
}

export function ownerOf(context: IHookFunctions | IWebhookFunctions): Owner {
	const workflowId = String(context.getWorkflow().id ?? '');
	return { workflowId, nodeId: context.getNode().id, instanceId: context.getInstanceId() };
}

/**
 * n8n activates and cleans up a workflow's webhook nodes together, and its Test URLs apart from its Production URLs:
 * the key is the workflow and the URLs' common part (the URL without this node's webhook id and path).
 */
export function activationKeyOf(context: IHookFunctions): string {
	const { instanceId, workflowId } = ownerOf(context);
	const url = context.getNodeWebhookUrl('default') ?? '';
	const webhookId = context.getNode().webhookId;
	return JSON.stringify([instanceId, workflowId, webhookId ? url.split(`/${webhookId}/`)[0] : url]);
}

const ownerKey = (owner: Owner) => JSON.stringify([owner.instanceId, owner.workflowId, owner.nodeId]);

export function isOwnedBy(record: Owner, owner: Owner): boolean {
	return ownerKey(record) === ownerKey(owner);
}

/** `*` alone covers every kind; sorted, so reordering the selection in the editor is not a change of subscription. */
export function normaliseEventSelection(selected: unknown): string[] {
	const values = Array.isArray(selected) ? selected.filter((value): value is string => typeof value === 'string') : [];
	if (values.includes(ALL_EVENTS)) return [ALL_EVENTS];
	return [...new Set(values)].sort();
}

const RECORD_FIELDS = ['id', 'workflowId', 'nodeId', 'instanceId', 'baseUrl', 'accountId', 'sealedSecret'] as const;
const recordOf = (record: SubscriptionRecord) =>
	Object.fromEntries(RECORD_FIELDS.map((field) => [field, record[field]]));

function readRecord(value: unknown): SubscriptionRecord | undefined {
	const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
	if (!RECORD_FIELDS.every((field) => typeof record[field] === 'string') || !isResourceId(record.id)) return undefined;
	return recordOf(record as unknown as SubscriptionRecord) as unknown as SubscriptionRecord;
}

/** The stored subscription, whoever wrote it (see isOwnedBy); undefined when there is none or it is unreadable. */
export function readSubscription(nodeData: IDataObject): StoredSubscription | undefined {
	const record = readRecord(nodeData.subscription);
	const { webhookUrl, events, createdAt } = (nodeData.subscription ?? {}) as Record<string, unknown>;
	if (record === undefined || typeof webhookUrl !== 'string' || !Array.isArray(events)) return undefined;
	const made = typeof createdAt === 'string' && !Number.isNaN(Date.parse(createdAt)) ? { createdAt } : {};
	if (createdAt !== undefined && made.createdAt === undefined) return undefined;
	return { ...record, webhookUrl, ...made, events: normaliseEventSelection(events) };
}

/** Subscriptions whose DELETE failed, retried at each (de)activation; in memory too, as n8n drops a test listen's data. */
export function readUndeleted(nodeData: IDataObject, owner: Owner): SubscriptionRecord[] {
	const stored = Array.isArray(nodeData.undeleted) ? (nodeData.undeleted as unknown[]) : [];
	const records = [...stored, ...(leftUndeleted.get(ownerKey(owner)) ?? [])].map(readRecord);
	const owned = records.filter((record): record is SubscriptionRecord => record !== undefined && isOwnedBy(record, owner));
	return [...new Map(owned.map((record) => [record.id, record])).values()];
}

/** Kept at most one per possible subscription of an account, the newest. */
export function storeUndeleted(nodeData: IDataObject, owner: Owner, records: SubscriptionRecord[]): void {
	const unique = [...new Map(records.map((record) => [record.id, record])).values()];
	const kept = unique.slice(-MAX_SUBSCRIPTIONS_PER_ACCOUNT).map(recordOf);
	if (kept.length === 0) leftUndeleted.delete(ownerKey(owner));
	else setAsNewest(leftUndeleted, ownerKey(owner), kept, 1_000);
	if (kept.length === 0) delete nodeData.undeleted;
	else nodeData.undeleted = kept;
}

type Named = { id?: string; name?: string };
/** Shown in the service's list, so a person can tell which workflow a subscription feeds (even an orphaned one). */
export function subscriptionDescription(workflow: Named, node: INode, isTest: boolean, at: Date): string {
	const name = workflow.name?.trim() || 'unnamed workflow';
	const suffix = ` – ${node.name}${isTest ? ' (test URL)' : ''} – workflow ${workflow.id ?? '?'}, ${at.toISOString().slice(0, 16)}Z`;
	const prefix = 'n8n: ';
	const room = MAX_DESCRIPTION_LENGTH - prefix.length - suffix.length;
	const fitted = name.length <= room ? name : `${name.slice(0, Math.max(0, room - 1))}…`;
	return `${prefix}${fitted}${suffix}`.slice(0, MAX_DESCRIPTION_LENGTH);
}
