// The subscription lifecycle n8n drives: activation calls checkExists, then create if it said false; unpublishing,
// re-publishing a changed trigger and n8n's clean-up after a failed activation call delete. "The service did not
// answer" is never taken for "another account", and a subscription for another URL than this node's is never deleted.
import type { IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isResourceId } from '../shared/resourceId';
import { IN_THE_APP } from '../shared/setupTexts';
import { explainSubscribeFailure, unansweredError } from './activationErrors';
import { recentActivations } from './memory';
import {
	activationKeyOf,
	isOwnedBy,
	normaliseEventSelection,
	ownerOf,
	readSubscription,
	readUndeleted,
	storeUndeleted,
	subscriptionDescription,
} from './records';
import type { StoredSubscription } from './records';
import { log, openSession, reaches, requestOnce, retire, retireUndeleted, SUBSCRIBE_TIMEOUT_MS } from './service';
import { sealSecret } from './signingSecret';

/** A record of this node for another URL: forgotten, never deleted (it may be another n8n's live subscription). */
function leaveElsewhere(context: IHookFunctions, stored: StoredSubscription, url: string): false {
	const message = `webhook subscription ${stored.id} delivers to ${stored.webhookUrl}, not to this node's ${url}: another n8n with the same instance id (the same encryption key) holds this workflow, or this n8n's WEBHOOK_URL changed. It is left alone and this node makes its own; if no n8n uses it any more, delete it in the app (${IN_THE_APP}).`;
	log(context, 'warn', message);
	delete context.getWorkflowStaticData('node').subscription;
	return false;
}

/** True when the stored subscription is this trigger's, in the credential's account, for this URL and these events. */
export async function subscriptionExists(this: IHookFunctions): Promise<boolean> {
	const activation = activationKeyOf(this);
	recentActivations.started(activation, Date.now()); // whatever fails from here (the credential too), n8n's clean-up keeps
	const nodeData = this.getWorkflowStaticData('node');
	const stored = readSubscription(nodeData);
	const url = this.getNodeWebhookUrl('default') ?? '';
	if (stored === undefined) return false;
	if (!isOwnedBy(stored, ownerOf(this))) {
		log(this, 'info', `subscription ${stored.id} in the stored data was made by another workflow, node or n8n instance (a copy or an import carries the original's data). It is left alone; this node makes its own.`);
		delete nodeData.subscription;
		return false;
	}
	if (stored.webhookUrl !== url) return leaveElsewhere(this, stored, url);
	const session = await openSession(this);
	const reach = await reaches(session, stored);
	if (reach === 'unknown') {
		const { failure } = (await session.account()) as { failure: unknown };
		const kept = `The trigger's webhook subscription ${stored.id} is kept, with any events it still has to deliver.`;
		const what = 'Could not ask the Booking Service which account the API key belongs to';
		throw unansweredError(this.getNode(), failure, what, kept);
	}
	const events = normaliseEventSelection(this.getNodeParameter('events', []));
	if (reach === 'yes' && stored.events.join(',') === events.join(',')) {
		if (!session.opens(stored))
			log(this, 'info', `the credential's API key changed (same account). Webhook subscription ${stored.id} is kept, and each of its deliveries is checked by reading its booking from the service until the workflow is unpublished and published again, which replaces the subscription.`);
		await retireUndeleted(session, nodeData, 'left from an earlier change');
		recentActivations.endedWell(activation, Date.now());
		return true;
	}
	const kept = await retire(session, stored, reach === 'yes' ? 'the events changed' : 'the credential changed');
	const undeleted = [...readUndeleted(nodeData, session.owner), ...(kept === undefined ? [] : [kept])];
	storeUndeleted(nodeData, session.owner, undeleted);
	delete nodeData.subscription;
	return false;
}

type Created = { id?: unknown; secret?: unknown; createdAt?: unknown };

export async function subscribe(this: IHookFunctions): Promise<boolean> {
	const activation = activationKeyOf(this);
	recentActivations.started(activation, Date.now());
	const made = { nodeId: this.getNode().id, subscription: await makeSubscription(this) };
	recentActivations.endedWell(activation, Date.now(), made);
	return true;
}

async function makeSubscription(context: IHookFunctions): Promise<StoredSubscription> {
	const node = context.getNode();
	const nodeData = context.getWorkflowStaticData('node');
	const webhookUrl = context.getNodeWebhookUrl('default');
	if (webhookUrl === undefined) throw new NodeOperationError(node, 'n8n gave no webhook URL for this trigger');
	const events = normaliseEventSelection(context.getNodeParameter('events', []));
	if (events.length === 0) throw new NodeOperationError(node, 'Choose at least one event to listen for');
	const session = await openSession(context);

	// The account id is what tells a later change of key from a change of account.
	const account = await session.account();
	if ('failure' in account) {
		const httpCode = (account.failure as { httpCode?: unknown }).httpCode;
		if (typeof httpCode === 'string' && httpCode !== '429' && !httpCode.startsWith('5')) throw account.failure;
		const what = 'Could not read the Booking Service account of the API key';
		throw unansweredError(node, account.failure, what, 'Nothing was subscribed.');
	}

	const description = subscriptionDescription(context.getWorkflow(), node, context.getMode() === 'manual', new Date());
	const body = { url: webhookUrl, events, description };
	const post = { method: 'POST', path: '/webhooks', body, scope: 'webhooks:manage' } as const;
	const requestedAt = new Date().toISOString();
	const posting = requestOnce<Created>(context, { ...post, timeoutMs: SUBSCRIBE_TIMEOUT_MS });
	const [created] = await Promise.all([
		posting.catch((failure: unknown) => ({ failure })),
		retireUndeleted(session, nodeData, 'left from an earlier change'),
	]);
	if (created !== undefined && 'failure' in created) {
		if ((created.failure as { httpCode?: unknown }).httpCode === null) {
			// No answer: it may exist all the same, with no way to find it but its description in the app.
			const message = `got no answer to its subscription request; the service may have created it anyway. If the app lists a subscription "${description}" that no active workflow uses, delete it (${IN_THE_APP}).`;
			log(context, 'warn', message);
		}
		throw explainSubscribeFailure(node, created.failure, webhookUrl);
	}
	const record = { ...session.owner, baseUrl: session.baseUrl, accountId: account.accountId };
	if (!isResourceId(created?.id) || typeof created.secret !== 'string' || created.secret === '') {
		// Without both there is nothing to verify deliveries with: no half-made subscription is left behind.
		if (isResourceId(created?.id))
			await retire(session, { ...record, id: created.id, sealedSecret: '' }, 'no signing secret');
		const message =
			'The Booking Service created no usable webhook subscription (no id or signing secret in its answer)';
		const description = "Check the Base URL in the credential: it must be the service's base URL including /v1.";
		throw new NodeApiError(node, { message: 'unexpected subscription response' }, { message, description });
	}
	const sealedSecret = sealSecret(created.secret, session.apiKey, session.owner);
	// The service's own instant (its bookings' clock); n8n's, taken before asking, if it gives none.
	const createdAt =
		typeof created.createdAt === 'string' && Date.parse(created.createdAt) ? created.createdAt : requestedAt;
	const subscription = { ...record, id: created.id, sealedSecret, webhookUrl, events, createdAt };
	nodeData.subscription = { ...subscription };
	return subscription;
}

/**
 * Never throws: n8n stops deactivating on a throw. What could not be deleted is recorded and tried again later. In n8n's
 * clean-up after a failed activation, only a subscription that activation made (never saved) is deleted.
 */
export async function unsubscribe(this: IHookFunctions): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const owner = ownerOf(this);
	const url = this.getNodeWebhookUrl('default') ?? '';
	const stored = readSubscription(nodeData);
	const own = stored !== undefined && isOwnedBy(stored, owner) ? stored : undefined;
	const recent = recentActivations.of(activationKeyOf(this), this.getNode().id, Date.now());
	const unsaved: StoredSubscription[] =
		recent.made?.webhookUrl === url && recent.made.id !== own?.id ? [recent.made] : [];
	if (recent.failed) {
		// What the stored record names may still have events to deliver: kept, whatever made the activation fail.
		if (own !== undefined)
			log(this, 'info', `webhook subscription ${own.id} is kept: the workflow's activation just failed.`);
	} else {
		if (own !== undefined && own.webhookUrl !== url) leaveElsewhere(this, own, url);
		if (own?.webhookUrl === url) unsaved.push(own);
		delete nodeData.subscription;
	}
	const records = [...readUndeleted(nodeData, owner).filter((record) => record.id !== own?.id), ...unsaved];
	storeUndeleted(nodeData, owner, records);
	if (records.length === 0) return true;
	try {
		const why = recent.failed ? 'made by the activation that failed' : 'the workflow was deactivated';
		await retireUndeleted(await openSession(this), nodeData, why);
	} catch (error) {
		// e.g. the credential was deleted: everything stays recorded for the next activation.
		const ids = records.map((record) => record.id).join(', ');
		const message = `could not delete webhook subscriptions ${ids}: ${(error as Error).message}. They are deleted at the next activation.`;
		log(this, 'warn', message);
	}
	return true;
}
