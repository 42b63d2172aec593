/**
 * What becomes of a subscription the node stops using (lifecycle.ts decides when):
 *
 * - retire: DELETE it with the credential when the credential reaches its account; on failure keep it as a leftover
 *   (retried on activation, its proven deliveries answered 410). When the credential points at another account or
 *   Base URL it cannot be deleted from here: logged by id and where it lives.
 * - drain: after an API key rotation (same account, the stored secret no longer opens), the old subscription is not
 *   deleted at once. The service may still be retrying events it refused or has not delivered yet, and only the old
 *   subscription carries those; it is kept for DRAIN_MS, its events made before the replacement run once when the
 *   service confirms them (apiCheck.ts), and it is deleted after that (by the first delivery or activation that finds
 *   the time passed). When the account has no room for the replacement, it stays in use instead (accountRoom.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import { setAsNewest } from '../shared/setAsNewest';
import { openSecret, sealSecret } from './secretBox';
import { unsealedSecrets } from './secretCache';
import { bindingOf, deleteOnService, logContext } from './serviceAccess';
import type { Context, CurrentCredential } from './serviceAccess';
import { readLeftoverSubscriptions, storeLeftoverSubscriptions, targetOf } from './subscription';
import type { AccountRef, LeftoverSubscription, Owner, StoredSubscription } from './subscription';

/**
 * How long a subscription replaced after a key rotation is kept. The contract does not show the service's back-off,
 * but a subscription is disabled only after failures spanning three days, so the service retries for at least that.
 */
export const DRAIN_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * Draining subscriptions this process made, of every trigger: when an account is full, an activation may retire
 * another trigger's drain early (accountRoom.ts). Bounded; a record of one deleted meanwhile only costs a DELETE's 404.
 */
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

/** A drain that has run out: the subscription is due for deletion. */
export function hasDrained(leftover: LeftoverSubscription, nowMs: number): boolean {
	return leftover.drainUntil !== undefined && !isDraining(leftover, nowMs);
}

/**
 * Whether the credential reaches the account a record's subscription lives in: same Base URL, and either the key
 * that sealed its secret or a key of the same account (GET /me). Only then is a DELETE's 404 "already gone".
 */
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

/** Adds leftovers to the node's list; logs any given up on for lack of room. */
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

/** The fields a leftover keeps of a stored subscription. */
function asLeftover(record: StoredSubscription | LeftoverSubscription): LeftoverSubscription {
	const { id, workflowId, nodeId, instanceId, baseUrl, accountId, sealedSecret } = record;
	return { id, workflowId, nodeId, instanceId, baseUrl, accountId, sealedSecret };
}

/**
 * Keeps the subscription of a rotated key as a draining leftover, its secret still sealed under the old key: a
 * rotated key may have leaked, so nothing is sealed again under the new one, and every delivery from the drain is
 * checked against the service (receive.ts, apiCheck.ts).
 */
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

/**
 * Removes a subscription this node made and no longer uses. With the account at hand: DELETE, and on failure keep
 * it for a later try. Without it (the credential now points elsewhere): it cannot be deleted from here — say so.
 */
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
