// The subscription lifecycle n8n drives: checkExists, then create if it said false; delete on deactivation. Another's
// record is forgotten, never acted on; a rotated key drains the old subscription (retirement.ts); a subscription is
// deleted only with a key of its own account. n8n waits for these hooks, so each request is one short attempt.
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isResourceId } from '../shared/resourceId';
import { keepOwnDrainInUse, retireDrainForRoom } from './accountRoom';
import { openSecret, sealSecret } from './secretBox';
import { drain, isDraining, keepLeftovers, retire } from './retirement';
import {
	BACKGROUND_TIMEOUT_MS,
	bindingOf,
	currentCredential,
	deleteOnService,
	lifecycleRequest,
	logContext,
	ownerOf,
} from './serviceAccess';
import type { Context, CurrentCredential } from './serviceAccess';
import { explainSubscribeFailure, isSubscriptionLimit } from './subscribeFailure';
import {
	forgetSubscription,
	isTestSubscription,
	normaliseEventSelection,
	ownershipOf,
	readLeftoverSubscriptions,
	readStoredSubscription,
	sameSubscriptionTarget,
	storeLeftoverSubscriptions,
	storeSubscription,
	subscriptionDescription,
} from './subscription';
import type { Owner, StoredSubscription } from './subscription';

// Per request: checkExists ≤ 5 s, create ≤ 4 s (account and leftovers, in parallel) + 10 s (with a full account, up
// to two rounds more of a 4 s DELETE and the POST), delete ≤ 10 s.
const REPLACE_TIMEOUT_MS = 5_000;
const SUBSCRIBE_TIMEOUT_MS = 10_000;
const DEACTIVATE_TIMEOUT_MS = 10_000;

function selectedEvents(context: Context): string[] {
	return normaliseEventSelection(context.getNodeParameter('events', []));
}

/** True only for our own subscription in the credential's account, for this URL and events, with a readable secret. */
export async function subscriptionExists(this: Context): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const stored = readStoredSubscription(nodeData);
	if (stored === undefined) return false;
	const owner = ownerOf(this);
	const ownership = ownershipOf(stored, owner);
	const webhookUrl = this.getNodeWebhookUrl('default') ?? '';
	if (ownership === 'foreign') {
		this.logger.info(
			`Booking Service Trigger found subscription ${stored.id} in its stored data, made by another workflow, node or n8n instance (a copy or an import of a workflow carries the original's data); it is left alone and this node makes its own.`,
			logContext(this),
		);
		forgetSubscription(nodeData);
		return false;
	}
	if (ownership === 'instance-unknown' && stored.webhookUrl !== webhookUrl) {
		// Written before records named their instance: another n8n holding this workflow, or this one under a new
		// WEBHOOK_URL. Deleting could kill another instance's live subscription, so it is only logged.
		this.logger.warn(
			`Booking Service Trigger found subscription ${stored.id} for ${stored.webhookUrl}, written by an earlier version of the node, which did not record its n8n instance. It may belong to another n8n instance holding this workflow, so it is left alone and this node makes its own. If it was this instance's (its webhook URL changed), delete it in the Booking Service app (Settings → API keys and webhooks).`,
			logContext(this),
		);
		forgetSubscription(nodeData);
		return false;
	}
	const credential = await currentCredential(this);
	const secretOpens = openSecret(stored.sealedSecret, credential.apiKey, bindingOf(owner)) !== undefined;
	if (secretOpens && stored.baseUrl === credential.baseUrl) {
		if (sameSubscriptionTarget(stored, webhookUrl, selectedEvents(this))) {
			if (ownership === 'instance-unknown') storeSubscription(nodeData, { ...stored, ...owner });
			await retireLeftovers(this, nodeData, credential, owner);
			return true;
		}
		await retire(this, nodeData, stored, credential, owner, 'the webhook URL or the events changed', REPLACE_TIMEOUT_MS);
	} else if (await isRotatedKey(stored, credential)) {
		drain(this, nodeData, stored, owner, Date.now());
	} else {
		await retire(this, nodeData, stored, credential, owner, 'the credential changed', REPLACE_TIMEOUT_MS);
	}
	forgetSubscription(nodeData);
	return false;
}

/** A new key of the account the subscription lives in: same Base URL and, by GET /me, the same account. */
async function isRotatedKey(
	stored: StoredSubscription,
	credential: CurrentCredential,
): Promise<boolean> {
	return (
		stored.baseUrl === credential.baseUrl &&
		stored.accountId !== undefined &&
		stored.accountId === (await credential.account())
	);
}

/** One more DELETE for each leftover, in parallel and bounded; draining ones stay until their time is up. */
async function retireLeftovers(
	context: Context,
	nodeData: IDataObject,
	credential: CurrentCredential,
	owner: Owner,
): Promise<void> {
	const nowMs = Date.now();
	const leftovers = readLeftoverSubscriptions(nodeData, owner);
	const [draining, due] = [
		leftovers.filter((leftover) => isDraining(leftover, nowMs)),
		leftovers.filter((leftover) => !isDraining(leftover, nowMs)),
	];
	if (due.length === 0) return;
	storeLeftoverSubscriptions(nodeData, draining);
	await Promise.all(
		due.map(async (leftover) => {
			await retire(context, nodeData, leftover, credential, owner, 'left over from an earlier replacement', BACKGROUND_TIMEOUT_MS);
		}),
	);
}

type CreatedSubscription = { id?: unknown; secret?: unknown; createdAt?: unknown };

/** Room made for one activation at most this often: each round is a DELETE and another POST. */
const MAX_ROOM_ROUNDS = 2;

/** POST /webhooks; when the account is full, make room from draining subscriptions (accountRoom.ts) and retry. */
async function createSubscription(
	context: Context,
	body: { url: string; events: string[]; description: string },
	nodeData: IDataObject,
	credential: CurrentCredential,
	owner: Owner,
): Promise<{ created: CreatedSubscription | undefined } | { keptInUse: string } | { failure: unknown }> {
	for (let round = 0; ; round++) {
		try {
			const created = await lifecycleRequest<CreatedSubscription | undefined>(context, {
				method: 'POST',
				path: '/webhooks',
				body,
				scope: 'webhooks:manage',
				timeoutMs: SUBSCRIBE_TIMEOUT_MS,
			});
			return { created };
		} catch (failure) {
			if (!isSubscriptionLimit(failure)) return { failure };
			const kept = keepOwnDrainInUse(context, nodeData, owner, body.url, body.events, Date.now());
			if (kept !== undefined) return { keptInUse: kept };
			const retry =
				round < MAX_ROOM_ROUNDS &&
				(await retireDrainForRoom(context, nodeData, credential, owner, Date.now())) !== undefined;
			if (!retry) return { failure };
		}
	}
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

	// Best effort and bounded: the account id lets a later credential change be judged.
	const nowMs = Date.now();
	const [accountId] = await Promise.all([credential.account(), retireLeftovers(this, nodeData, credential, owner)]);

	const description = subscriptionDescription(this.getWorkflow(), this.getNode(), isTestSubscription(this), new Date());
	const attempt = await createSubscription(this, { url: webhookUrl, events, description }, nodeData, credential, owner);
	if ('failure' in attempt) {
		const error = attempt.failure;
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
	if ('keptInUse' in attempt) return true;
	const { created } = attempt;

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

	// The service's own time, compared with its events' times: a draining subscription's events made before this
	// run from it; later ones reach the new subscription too.
	const createdAt =
		typeof created.createdAt === 'string' && !Number.isNaN(Date.parse(created.createdAt))
			? created.createdAt
			: new Date(nowMs).toISOString();
	storeLeftoverSubscriptions(
		nodeData,
		readLeftoverSubscriptions(nodeData, owner).map((leftover) =>
			isDraining(leftover, nowMs) && leftover.replacedAt === undefined ? { ...leftover, replacedAt: createdAt } : leftover,
		),
	);
	const subscription: StoredSubscription = {
		id: created.id,
		webhookUrl,
		events,
		sealedSecret: sealSecret(created.secret, credential.apiKey, bindingOf(owner)),
		...owner,
		baseUrl: credential.baseUrl,
		...(accountId === undefined ? {} : { accountId }),
		createdAt,
	};
	storeSubscription(nodeData, subscription);
	return true;
}

/** Never throws: n8n stops deactivating on a throw. What could not be deleted is kept and retried on activation. */
export async function unsubscribe(this: Context): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const stored = readStoredSubscription(nodeData);
	const owner = ownerOf(this);
	const leftovers = readLeftoverSubscriptions(nodeData, owner);
	const records = [
		...(stored !== undefined && ownershipOf(stored, owner) !== 'foreign' ? [stored] : []),
		...leftovers,
	];
	if (records.length > 0) {
		storeLeftoverSubscriptions(nodeData, []);
		try {
			const credential = await currentCredential(this);
			await Promise.all(
				records.map(async (record) => {
					await retire(this, nodeData, record, credential, owner, 'the workflow was deactivated', DEACTIVATE_TIMEOUT_MS);
				}),
			);
		} catch (error) {
			keepLeftovers(this, nodeData, owner, records);
			this.logger.warn(
				`Booking Service Trigger could not delete webhook subscriptions ${records.map((record) => record.id).join(', ')}: ${(error as Error).message}. They will be retried on the next activation.`,
				logContext(this),
			);
		}
	}
	forgetSubscription(nodeData);
	return true;
}
