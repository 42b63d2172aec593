/**
 * The trigger's subscription lifecycle, as n8n drives it: on activation `checkExists` (subscriptionExists) and then,
 * if it said false, `create` (subscribe); on deactivation `delete` (unsubscribe). The rules:
 *
 * - A subscription belongs to one workflow node. The record names its owner; a record another workflow or node wrote
 *   (static data copied with the workflow by export/import or the public API) is forgotten, never acted on, so a
 *   copy never deletes the original's live subscription.
 * - A subscription is deleted only with a key of the account it lives in. If the credential now points at another
 *   Base URL or account, the old subscription cannot be reached: it is logged by id with where to delete it, and its
 *   deliveries, if this process can still verify them, are answered 410 so the service deletes it.
 * - A subscription whose DELETE failed is kept (with its sealed secret) and retried on the next activation; until
 *   then a delivery proven to come from it is answered 410.
 * - n8n waits for these hooks, so every request here is one attempt with a short timeout: activation and
 *   deactivation finish within about 20 seconds whatever the service does.
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BOOKING_SERVICE_CREDENTIAL_TYPE, bookingServiceApiRequest } from '../shared/transport';
import type { BookingServiceRequest } from '../shared/transport';
import { normaliseBaseUrl } from '../shared/baseUrl';
import { isResourceId } from '../shared/resourceId';
import { isAlreadyGone } from '../shared/serviceErrors';
import { openSecret, sealSecret } from './secretBox';
import type { SecretBinding } from './secretBox';
import { unsealedSecrets } from './secretCache';
import {
	explainSubscribeFailure,
	forgetSubscription,
	isOwnedBy,
	isTestSubscription,
	normaliseEventSelection,
	readLeftoverSubscriptions,
	readStoredSubscription,
	sameSubscriptionTarget,
	storeLeftoverSubscriptions,
	storeSubscription,
	subscriptionDescription,
} from './subscription';
import type { AccountRef, LeftoverSubscription, Owner, StoredSubscription } from './subscription';

/** Per request: checkExists ≤ 5 s, create ≤ 4 s (account and leftovers, in parallel) + 10 s, delete ≤ 10 s. */
const REPLACE_TIMEOUT_MS = 5_000;
const BACKGROUND_TIMEOUT_MS = 4_000;
const SUBSCRIBE_TIMEOUT_MS = 10_000;
const DEACTIVATE_TIMEOUT_MS = 10_000;

const DELETE_IN_APP = 'Delete it in the Booking Service app of that account (Settings → API keys and webhooks).';

type Context = IHookFunctions;

interface CurrentCredential extends AccountRef {
	apiKey: string;
	/** The account id behind the key (GET /me), asked at most once per hook call, on first need. */
	account(): Promise<string | undefined>;
}

export function ownerOf(context: Context | { getWorkflow(): { id?: string }; getNode(): { id: string } }): Owner {
	return { workflowId: String(context.getWorkflow().id ?? ''), nodeId: context.getNode().id };
}

export function bindingOf(owner: Owner): SecretBinding {
	return { workflowId: owner.workflowId, nodeId: owner.nodeId };
}

async function currentCredential(context: Context): Promise<CurrentCredential> {
	const credential = await context.getCredentials<{ apiKey?: unknown; baseUrl?: unknown }>(
		BOOKING_SERVICE_CREDENTIAL_TYPE,
	);
	const parsed = normaliseBaseUrl(credential.baseUrl);
	if ('problem' in parsed) throw new NodeOperationError(context.getNode(), parsed.problem);
	const apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
	let account: Promise<string | undefined> | undefined;
	return { apiKey, baseUrl: parsed.baseUrl, account: () => (account ??= accountIdOf(context)) };
}

function selectedEvents(context: Context): string[] {
	return normaliseEventSelection(context.getNodeParameter('events', []));
}

async function lifecycleRequest<T>(context: Context, request: BookingServiceRequest): Promise<T> {
	return (await bookingServiceApiRequest.call(context, { maxAttempts: 1, ...request })) as T;
}

/** The id of the account the credential's key belongs to, or undefined when the service did not say in time. */
async function accountIdOf(context: Context): Promise<string | undefined> {
	try {
		const account = await lifecycleRequest<{ id?: unknown }>(context, {
			method: 'GET',
			path: '/me',
			timeoutMs: BACKGROUND_TIMEOUT_MS,
		});
		return typeof account?.id === 'string' && account.id !== '' ? account.id : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Whether the credential reaches the account a record's subscription lives in: same Base URL, and either the key
 * that sealed its secret or a key of the same account (GET /me). Only then is a DELETE's 404 "already gone".
 */
async function reachesAccountOf(
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

/** DELETE with one attempt: 'deleted' (404/410 included: already gone), or 'failed' with the reason. */
async function deleteOnService(
	context: Context,
	subscriptionId: string,
	timeoutMs: number,
): Promise<{ outcome: 'deleted' } | { outcome: 'failed'; reason: string }> {
	try {
		await lifecycleRequest(context, {
			method: 'DELETE',
			path: `/webhooks/${subscriptionId}`,
			scope: 'webhooks:manage',
			timeoutMs,
		});
		return { outcome: 'deleted' };
	} catch (error) {
		if (isAlreadyGone(error)) return { outcome: 'deleted' };
		return { outcome: 'failed', reason: (error as Error).message };
	}
}

function logContext(context: Context) {
	return { workflowId: context.getWorkflow().id, nodeName: context.getNode().name };
}

/** Adds leftovers to the node's list; logs any given up on for lack of room. */
function keepLeftovers(context: Context, nodeData: IDataObject, owner: Owner, added: LeftoverSubscription[]): void {
	const givenUp = storeLeftoverSubscriptions(nodeData, [...readLeftoverSubscriptions(nodeData, owner), ...added]);
	for (const leftover of givenUp) {
		context.logger.warn(
			`Booking Service Trigger stopped retrying to delete webhook subscription ${leftover.id} at ${leftover.baseUrl}. ${DELETE_IN_APP}`,
			logContext(context),
		);
	}
}

/**
 * Removes a subscription this node made and no longer uses. With the account at hand: DELETE, and on failure keep
 * it for a later try. Without it (the credential now points elsewhere): it cannot be deleted from here — say so.
 */
async function retire(
	context: Context,
	nodeData: IDataObject,
	record: LeftoverSubscription,
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
				{ ...record, sealedSecret: sealSecret(secret, credential.apiKey, binding) },
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
	if (result.outcome === 'failed') {
		keepLeftovers(context, nodeData, owner, [record]);
		context.logger.warn(
			`Could not delete Booking Service webhook subscription ${record.id} (${why}): ${result.reason}. It will be retried on the next activation, and its deliveries are answered 410 so the service deletes it; you can also delete it in the app (Settings → API keys and webhooks).`,
			logContext(context),
		);
	}
}

/**
 * True only when this node holds a subscription it owns, in the credential's account, for exactly this URL and event
 * selection, with a secret it can read. A record another workflow or node wrote is forgotten; one of ours that no
 * longer fits is retired (deleted, or kept for later) before `create` makes the new one.
 */
export async function subscriptionExists(this: Context): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const stored = readStoredSubscription(nodeData);
	if (stored === undefined) return false;
	const owner = ownerOf(this);
	if (!isOwnedBy(stored, owner)) {
		this.logger.info(
			`Booking Service Trigger found subscription ${stored.id} in its stored data, made by another workflow or node (a copy of a workflow carries the original's data); it is left alone and this node makes its own.`,
			logContext(this),
		);
		forgetSubscription(nodeData);
		return false;
	}
	const credential = await currentCredential(this);
	const secretOpens = openSecret(stored.sealedSecret, credential.apiKey, bindingOf(owner)) !== undefined;
	if (secretOpens && stored.baseUrl === credential.baseUrl) {
		if (sameSubscriptionTarget(stored, this.getNodeWebhookUrl('default') ?? '', selectedEvents(this))) return true;
		await retire(this, nodeData, stored, credential, owner, 'the webhook URL or the events changed', REPLACE_TIMEOUT_MS);
	} else {
		await retire(this, nodeData, stored, credential, owner, 'the credential changed', REPLACE_TIMEOUT_MS);
	}
	forgetSubscription(nodeData);
	return false;
}

export async function subscribe(this: Context): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const webhookUrl = this.getNodeWebhookUrl('default');
	if (webhookUrl === undefined) {
		throw new NodeOperationError(this.getNode(), 'n8n did not provide a webhook URL for this trigger');
	}
	const events = selectedEvents(this);
	if (events.length === 0) throw new NodeOperationError(this.getNode(), 'Choose at least one event to listen for');
	const owner = ownerOf(this);
	const credential = await currentCredential(this);

	// Both are best effort and bounded: the account id lets a later credential change be judged, and leftovers get
	// one more try each, in parallel, without holding up the new subscription for long.
	const leftovers = readLeftoverSubscriptions(nodeData, owner);
	storeLeftoverSubscriptions(nodeData, []);
	const [accountId] = await Promise.all([
		credential.account(),
		Promise.all(
			leftovers.map(async (leftover) => {
				await retire(this, nodeData, leftover, credential, owner, 'left over from an earlier replacement', BACKGROUND_TIMEOUT_MS);
			}),
		),
	]);

	const description = subscriptionDescription(this.getWorkflow(), this.getNode(), isTestSubscription(this), new Date());
	let created: { id?: unknown; secret?: unknown } | undefined;
	try {
		created = await lifecycleRequest(this, {
			method: 'POST',
			path: '/webhooks',
			body: { url: webhookUrl, events, description },
			scope: 'webhooks:manage',
			timeoutMs: SUBSCRIBE_TIMEOUT_MS,
		});
	} catch (error) {
		if ((error as { httpCode?: unknown }).httpCode === null) {
			// No answer: the service may have made the subscription all the same, and nothing can find it (the contract
			// shows no way to list subscriptions). Its description makes it recognisable in the app.
			this.logger.warn(
				`Booking Service Trigger got no answer to its subscription request; the service may have created it anyway. If the app lists a subscription "${description}" that no active workflow uses, delete it (Settings → API keys and webhooks).`,
				logContext(this),
			);
		}
		throw explainSubscribeFailure(this.getNode(), error, webhookUrl);
	}

	if (!isResourceId(created?.id) || typeof created.secret !== 'string' || created.secret === '') {
		// Without both there is nothing to verify deliveries with; do not leave a half-made subscription.
		if (isResourceId(created?.id)) await deleteOnService(this, created.id, BACKGROUND_TIMEOUT_MS);
		throw new NodeApiError(
			this.getNode(),
			{ message: 'unexpected subscription response' },
			{
				message: 'The Booking Service created no usable webhook subscription (no id or signing secret in its answer)',
				description: "Check the Base URL in the credential: it must be the service's base URL including /v1.",
			},
		);
	}

	const subscription: StoredSubscription = {
		id: created.id,
		webhookUrl,
		events,
		sealedSecret: sealSecret(created.secret, credential.apiKey, bindingOf(owner)),
		...owner,
		baseUrl: credential.baseUrl,
		...(accountId === undefined ? {} : { accountId }),
	};
	storeSubscription(nodeData, subscription);
	return true;
}

/** Never throws: n8n stops deactivating on a throw. What could not be deleted is kept and retried on activation. */
export async function unsubscribe(this: Context): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const stored = readStoredSubscription(nodeData);
	const owner = ownerOf(this);
	if (stored !== undefined && isOwnedBy(stored, owner)) {
		try {
			const credential = await currentCredential(this);
			await retire(this, nodeData, stored, credential, owner, 'the workflow was deactivated', DEACTIVATE_TIMEOUT_MS);
		} catch (error) {
			keepLeftovers(this, nodeData, owner, [stored]);
			this.logger.warn(
				`Booking Service Trigger could not delete webhook subscription ${stored.id}: ${(error as Error).message}. It will be retried on the next activation.`,
				logContext(this),
			);
		}
	}
	forgetSubscription(nodeData);
	return true;
}
