// When POST /webhooks is refused for the account's limit of 25: after a key rotation the old subscriptions drain for
// three days and still count, so a re-activation could find the account full and n8n would leave the workflow off.
// First the trigger keeps its own drain in use; else the drain ending first is deleted early. A live one never is.
import type { IDataObject } from 'n8n-workflow';

import { drainsInThisProcess, isDraining } from './retirement';
import { isAlreadyGone } from '../shared/serviceErrors';
import { BACKGROUND_TIMEOUT_MS, lifecycleRequest, logContext } from './serviceAccess';
import type { Context, CurrentCredential } from './serviceAccess';
import { readLeftoverSubscriptions, storeLeftoverSubscriptions, storeSubscription, targetOf } from './subscription';
import type { AccountRef, Owner } from './subscription';

// n8n waits for the activation, so one refusal costs a few DELETEs (4 s each at most). An "already gone" answer frees
// nothing, so the next is tried.
const MAX_CANDIDATES = 6;
const MAX_FAILED_DELETES = 2;

interface Candidate extends AccountRef {
	id: string;
	drainUntil: string;
	own: boolean;
}

/** Its secret stays sealed under the old key, so every delivery is checked against the service (receive.ts). */
export function keepOwnDrainInUse(
	context: Context,
	nodeData: IDataObject,
	owner: Owner,
	webhookUrl: string,
	events: string[],
	nowMs: number,
): string | undefined {
	const leftovers = readLeftoverSubscriptions(nodeData, owner);
	const target = targetOf(webhookUrl, events);
	const drain = leftovers.find(
		(leftover) =>
			isDraining(leftover, nowMs) &&
			leftover.replacedAt === undefined &&
			leftover.target === target &&
			leftover.sealedSecret !== undefined,
	);
	if (drain === undefined) return undefined;
	storeLeftoverSubscriptions(nodeData, leftovers.filter((leftover) => leftover.id !== drain.id));
	const { id, workflowId, nodeId, instanceId, baseUrl, accountId, sealedSecret } = drain;
	storeSubscription(nodeData, {
		id,
		webhookUrl,
		events,
		sealedSecret: sealedSecret!,
		workflowId,
		nodeId,
		...(instanceId === undefined ? {} : { instanceId }),
		baseUrl,
		...(accountId === undefined ? {} : { accountId }),
	});
	drainsInThisProcess.delete(id); // in use again: no other trigger may delete it for room
	context.logger.warn(
		`Booking Service Trigger: the account holds the maximum of webhook subscriptions, so this trigger keeps using its subscription ${id} made with the previous API key instead of a new one. Its deliveries are checked against the service by reading each booking; the next activation tries to replace it again.`,
		logContext(context),
	);
	return id;
}

function byDrainEnd(a: Candidate, b: Candidate): number {
	return Date.parse(a.drainUntil) - Date.parse(b.drainUntil);
}

export async function retireDrainForRoom(
	context: Context,
	nodeData: IDataObject,
	credential: CurrentCredential,
	owner: Owner,
	nowMs: number,
): Promise<string | undefined> {
	const accountId = await credential.account();
	if (accountId === undefined) return undefined; // without it no drain is known to live in this account
	const inAccount = (record: AccountRef) => record.baseUrl === credential.baseUrl && record.accountId === accountId;
	const own: Candidate[] = readLeftoverSubscriptions(nodeData, owner)
		.filter((leftover) => isDraining(leftover, nowMs) && inAccount(leftover))
		.map((leftover) => ({ ...leftover, drainUntil: leftover.drainUntil!, own: true }));
	const ownIds = new Set(own.map((candidate) => candidate.id));
	const others: Candidate[] = [...drainsInThisProcess.values()]
		.filter((drain) => !ownIds.has(drain.id) && Date.parse(drain.drainUntil) > nowMs && inAccount(drain))
		.map((drain) => ({ ...drain, own: false }));

	let failures = 0;
	const candidates = [...own.sort(byDrainEnd), ...others.sort(byDrainEnd)].slice(0, MAX_CANDIDATES);
	for (const candidate of candidates) {
		if (failures >= MAX_FAILED_DELETES) break;
		let outcome: 'deleted' | 'gone' | 'failed';
		try {
			await lifecycleRequest(context, {
				method: 'DELETE',
				path: `/webhooks/${candidate.id}`,
				scope: 'webhooks:manage',
				timeoutMs: BACKGROUND_TIMEOUT_MS,
			});
			outcome = 'deleted';
		} catch (error) {
			outcome = isAlreadyGone(error) ? 'gone' : 'failed';
		}
		if (outcome === 'failed') {
			failures += 1;
			continue;
		}
		drainsInThisProcess.delete(candidate.id);
		if (candidate.own) {
			storeLeftoverSubscriptions(
				nodeData,
				readLeftoverSubscriptions(nodeData, owner).filter((leftover) => leftover.id !== candidate.id),
			);
		}
		// Already gone (deleted in the app, or by its own trigger meanwhile) made no room: one quick answer, try the next.
		if (outcome === 'gone') continue;
		context.logger.warn(
			`Booking Service Trigger: the account holds the maximum of webhook subscriptions, so ${candidate.own ? "this trigger's" : "another trigger's"} old subscription ${candidate.id}, draining since a key rotation until ${candidate.drainUntil}, was deleted early to make room. The service's pending retries of events made before its replacement are lost with it.`,
			logContext(context),
		);
		return candidate.id;
	}
	return undefined;
}
