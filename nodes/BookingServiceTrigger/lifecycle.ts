// The subscription lifecycle n8n drives: activation calls checkExists, then create if it said false; deactivation,
// re-publishing and n8n's clean-up after a failed activation call delete. "The service did not answer" is never taken
// for "it is another account": nothing that may still have events to deliver is forgotten or deleted on a guess.
import type { IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { isResourceId } from '../shared/resourceId';
import { explainSubscribeFailure, unansweredError } from './activationErrors';
import { heldSubscriptions } from './memory';
import {
	bindingOf,
	forgetSubscription,
	isOwnedBy,
	isSameTarget,
	normaliseEventSelection,
	ownerOf,
	readSubscription,
	readUndeleted,
	storeSubscription,
	storeUndeleted,
	subscriptionDescription,
} from './records';
import { IN_THE_APP, openSession, reaches, request, retire, retireUndeleted, SUBSCRIBE_TIMEOUT_MS } from './service';
import { sealSecret } from './signingSecret';

function selectedEvents(context: IHookFunctions): string[] {
	return normaliseEventSelection(context.getNodeParameter('events', []));
}

/** True when the stored subscription is this trigger's, in the credential's account, for this URL and these events. */
export async function subscriptionExists(this: IHookFunctions): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const stored = readSubscription(nodeData);
	if (stored === undefined) return false;
	if (!isOwnedBy(stored, ownerOf(this))) {
		const message = `subscription ${stored.id} in the stored data was made by another workflow, node or n8n instance (a copy or an import of a workflow carries the original's data). It is left alone; this node makes its own.`;
		this.logger.info(`Booking Service Trigger: ${message}`, { workflowId: this.getWorkflow().id });
		forgetSubscription(nodeData);
		return false;
	}
	const session = await openSession(this);
	const reach = await reaches(session, stored);
	if (reach === 'unknown') {
		// n8n calls delete to clean up after this failure; that call keeps the subscription (memory.ts).
		heldSubscriptions.hold(stored.id, Date.now());
		const { failure } = (await session.account()) as { failure: unknown };
		const kept = `The trigger's webhook subscription ${stored.id} is kept, with any events it still has to deliver.`;
		throw unansweredError(
			this.getNode(),
			failure,
			'Could not ask the Booking Service which account the API key belongs to',
			kept,
		);
	}
	if (reach === 'yes' && isSameTarget(stored, this.getNodeWebhookUrl('default') ?? '', selectedEvents(this))) {
		if (!session.opens(stored)) {
			const message = `the credential's API key changed (same account). Webhook subscription ${stored.id} is kept, and each of its deliveries is checked by reading its booking from the service until the workflow is published again, which replaces the subscription.`;
			session.log('info', message);
		}
		await retireUndeleted(session, nodeData, 'left from an earlier change');
		return true;
	}
	const kept = await retire(
		session,
		stored,
		reach === 'yes' ? 'the webhook URL or the events changed' : 'the credential changed',
	);
	storeUndeleted(nodeData, [...readUndeleted(nodeData, session.owner), ...(kept === undefined ? [] : [kept])]);
	forgetSubscription(nodeData);
	return false;
}

type Created = { id?: unknown; secret?: unknown } | undefined;

export async function subscribe(this: IHookFunctions): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const webhookUrl = this.getNodeWebhookUrl('default');
	if (webhookUrl === undefined)
		throw new NodeOperationError(this.getNode(), 'n8n gave no webhook URL for this trigger');
	const events = selectedEvents(this);
	if (events.length === 0) throw new NodeOperationError(this.getNode(), 'Choose at least one event to listen for');
	const session = await openSession(this);

	// The account id is what tells a later change of key from a change of account.
	const account = await session.account();
	if ('failure' in account) {
		const httpCode = (account.failure as { httpCode?: unknown }).httpCode;
		if (typeof httpCode === 'string' && httpCode !== '429' && !httpCode.startsWith('5')) throw account.failure;
		throw unansweredError(
			this.getNode(),
			account.failure,
			'Could not read the Booking Service account of the API key',
			'Nothing was subscribed.',
		);
	}

	const description = subscriptionDescription(
		this.getWorkflow(),
		this.getNode(),
		this.getMode() === 'manual',
		new Date(),
	);
	const body = { url: webhookUrl, events, description };
	const post = {
		method: 'POST',
		path: '/webhooks',
		body,
		scope: 'webhooks:manage',
		timeoutMs: SUBSCRIBE_TIMEOUT_MS,
	} as const;
	const [created] = await Promise.all([
		request<Created>(this, post).catch((error: unknown) => ({ failure: error })),
		retireUndeleted(session, nodeData, 'left from an earlier change'),
	]);
	if (created !== undefined && 'failure' in created) {
		if ((created.failure as { httpCode?: unknown }).httpCode === null) {
			// No answer: the service may have made it all the same, and the contract shows no way to find it. Its
			// description makes it recognisable in the app.
			const message = `got no answer to its subscription request; the service may have created it anyway. If the app lists a subscription "${description}" that no active workflow uses, delete it (${IN_THE_APP}).`;
			session.log('warn', message);
		}
		throw explainSubscribeFailure(this.getNode(), created.failure, webhookUrl);
	}
	const record = { ...session.owner, baseUrl: session.baseUrl, accountId: account.accountId };
	if (!isResourceId(created?.id) || typeof created.secret !== 'string' || created.secret === '') {
		// Without both there is nothing to verify deliveries with: no half-made subscription is left behind.
		if (isResourceId(created?.id))
			await retire(session, { ...record, id: created.id, sealedSecret: '' }, 'no signing secret');
		throw new NodeApiError(
			this.getNode(),
			{ message: 'unexpected subscription response' },
			{
				message: 'The Booking Service created no usable webhook subscription (no id or signing secret in its answer)',
				description: "Check the Base URL in the credential: it must be the service's base URL including /v1.",
			},
		);
	}
	const sealedSecret = sealSecret(created.secret, session.apiKey, bindingOf(session.owner));
	storeSubscription(nodeData, { ...record, id: created.id, sealedSecret, webhookUrl, events });
	return true;
}

/** Never throws: n8n stops deactivating on a throw. What could not be deleted is recorded and tried again later. */
export async function unsubscribe(this: IHookFunctions): Promise<boolean> {
	const nodeData = this.getWorkflowStaticData('node');
	const owner = ownerOf(this);
	const stored = readSubscription(nodeData);
	const own = stored !== undefined && isOwnedBy(stored, owner) ? stored : undefined;
	if (own !== undefined && heldSubscriptions.release(own.id, Date.now())) {
		const message = `webhook subscription ${own.id} is kept: the activation that just failed could not ask the service whether it is still this trigger's. The next activation uses it or replaces it.`;
		this.logger.info(`Booking Service Trigger: ${message}`, { workflowId: this.getWorkflow().id });
		return true;
	}
	const records = [...(own === undefined ? [] : [own]), ...readUndeleted(nodeData, owner)];
	forgetSubscription(nodeData);
	storeUndeleted(nodeData, records);
	if (records.length === 0) return true;
	try {
		await retireUndeleted(await openSession(this), nodeData, 'the workflow was deactivated');
	} catch (error) {
		// e.g. the credential was deleted: everything stays recorded for the next activation.
		const ids = records.map((record) => record.id).join(', ');
		const message = `could not delete webhook subscriptions ${ids}: ${(error as Error).message}. They are deleted at the next activation.`;
		this.logger.warn(`Booking Service Trigger: ${message}`, { workflowId: this.getWorkflow().id });
	}
	return true;
}
