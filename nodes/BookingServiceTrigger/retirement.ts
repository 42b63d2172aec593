// What becomes of a subscription the node stops using: retire (DELETE it; kept as a leftover when that fails; logged
// when the credential no longer reaches its account) or, after a key rotation, drain (kept for DRAIN_MS so the
// service's retries of earlier events run once, confirmed by apiCheck.ts, then deleted).
import type { IDataObject } from 'n8n-workflow';

import { setAsNewest } from '../shared/setAsNewest';
import { openSecret, sealSecret } from './secretBox';
import { unsealedSecrets } from './secretCache';
import { bindingOf, deleteOnService, logContext } from './serviceAccess';
import type { Context, CurrentCredential } from './serviceAccess';
import { readLeftoverSubscriptions, storeLeftoverSubscriptions, targetOf } from './subscription';
import type { AccountRef, LeftoverSubscription, Owner, StoredSubscription } from './subscription';

// The contract does not show the service's back-off, but a subscription is disabled only after failures spanning
// three days, so the service retries for at least that.
export const DRAIN_MS = 3 * 24 * 60 * 60 * 1000;

// Draining subscriptions this process made, of every trigger: a full account may retire another trigger's drain
// early (accountRoom.ts). Bounded; a stale record only costs a DELETE's 404.
export interface KnownDrain extends AccountRef {
	id: string;
	drainUntil: string;
}
export const drainsInThisProcess = new Map<string, KnownDrain>();
const DRAINS_REMEMBERED = 1_000;

const DELETE_IN_APP = 'Delete it in the Booking Service app of that account (Settings → API keys and webhooks).';

export function isDraining(leftover: LeftoverSubscription, nowMs: number): boolean {
	return leftover.drainUntil !== undefined && Date.parse(leftover.drainUntil) > nowMs;
}

export function hasDrained(leftover: LeftoverSubscription, nowMs: number): boolean {
	return leftover.drainUntil !== undefined && !isDraining(leftover, nowMs);
}

/** Only when the credential reaches the record's account (its key, or GET /me) is a DELETE's 404 "already gone". */
export async function reachesAccountOf(
	record: AccountRef & { sealedSecret?: string },
	credential: CurrentCredential,
	owner: Owner,
): Promise<boolean> {
	if (record.baseUrl !== credential.baseUrl) return false;
	if (record.sealedSecret !== undefined && openSecret(record.sealedSecret, credential.apiKey, bindingOf(owner)) !== undefined) {
		return true;
	}
	return record.accountId !== undefined && record.accountId === (await credential.account());
}

export function keepLeftovers(
	context: Context,
	nodeData: IDataObject,
	owner: Owner,
	added: LeftoverSubscription[],
): void {
	const givenUp = storeLeftoverSubscriptions(nodeData, [...readLeftoverSubscriptions(nodeData, owner), ...added]);
	for (const leftover of givenUp) {
		context.logger.warn(
			`Booking Service Trigger stopped retrying to delete webhook subscription ${leftover.id} at ${leftover.baseUrl}. ${DELETE_IN_APP}`,
			logContext(context),
		);
	}
}

function asLeftover(record: StoredSubscription | LeftoverSubscription): LeftoverSubscription {
	const { id, workflowId, nodeId, instanceId, baseUrl, accountId, sealedSecret } = record;
	return { id, workflowId, nodeId, instanceId, baseUrl, accountId, sealedSecret };
}

/** The old secret stays sealed under the old key: a rotated key may have leaked, so every drain delivery is checked. */
export function drain(
	context: Context,
	nodeData: IDataObject,
	stored: StoredSubscription,
	owner: Owner,
	nowMs: number,
): void {
	const drainUntil = new Date(nowMs + DRAIN_MS).toISOString();
	const { id, baseUrl, accountId } = stored;
	setAsNewest(drainsInThisProcess, id, { id, baseUrl, accountId, drainUntil }, DRAINS_REMEMBERED);
	keepLeftovers(context, nodeData, owner, [
		{ ...asLeftover(stored), drainUntil, target: targetOf(stored.webhookUrl, stored.events) },
	]);
	context.logger.info(
		`Booking Service Trigger: the credential's API key changed, so webhook subscription ${stored.id} is replaced by a new one. The old one is kept until ${drainUntil} so that the service's retries of earlier events still run once, and deleted after that.`,
		logContext(context),
	);
}

export async function retire(
	context: Context,
	nodeData: IDataObject,
	record: StoredSubscription | LeftoverSubscription,
	credential: CurrentCredential,
	owner: Owner,
	why: string,
	timeoutMs: number,
): Promise<void> {
	if (!(await reachesAccountOf(record, credential, owner))) {
		// Its secret, if still known (sealed under the current key, or unsealed by this process for a delivery), is
		// kept so that its next delivery is answered 410 — the service then deletes it.
		const binding = bindingOf(owner);
		const secret =
			record.sealedSecret === undefined
				? undefined
				: (openSecret(record.sealedSecret, credential.apiKey, binding) ??
					unsealedSecrets.get(binding, record.sealedSecret));
		if (secret !== undefined) {
			keepLeftovers(context, nodeData, owner, [
				{ ...asLeftover(record), sealedSecret: sealSecret(secret, credential.apiKey, binding) },
			]);
		}
		const until =
			secret === undefined
				? 'Until then the service keeps sending its events to this workflow, which refuses them.'
				: 'Its next delivery here is answered 410, which makes the service delete it.';
		context.logger.warn(
			`Booking Service Trigger cannot delete its old webhook subscription ${record.id} (${why}): it lives at ${record.baseUrl}${record.accountId === undefined ? '' : ` in account ${record.accountId}`}, and the credential now points at another account or Base URL. ${DELETE_IN_APP} ${until}`,
			logContext(context),
		);
		return;
	}
	const result = await deleteOnService(context, record.id, timeoutMs);
	if (result.outcome === 'deleted') drainsInThisProcess.delete(record.id);
	if (result.outcome === 'failed') {
		keepLeftovers(context, nodeData, owner, [asLeftover(record)]);
		context.logger.warn(
			`Could not delete Booking Service webhook subscription ${record.id} (${why}): ${result.reason}. It will be retried on the next activation, and its deliveries are answered 410 so the service deletes it; you can also delete it in the app (Settings → API keys and webhooks).`,
			logContext(context),
		);
	}
}
