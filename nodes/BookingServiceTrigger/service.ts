// What the trigger asks of n8n and of the service: the credential, the account behind its key, and deleting a
// subscription only with a key proven to reach its account. n8n waits for the hooks and the service for a delivery's
// answer, so every request is one attempt with a deadline: a 429 fails at once instead of waiting for its Retry-After.
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normaliseBaseUrl } from '../shared/baseUrl';
import { isAlreadyGone } from '../shared/serviceErrors';
import { IN_THE_APP } from '../shared/setupTexts';
import { BOOKING_SERVICE_CREDENTIAL_TYPE, bookingServiceApiRequest } from '../shared/transport';
import type { BookingServiceRequest } from '../shared/transport';
import { ownerOf, readUndeleted, storeUndeleted } from './records';
import type { SubscriptionRecord } from './records';
import { openSecret } from './signingSecret';

/** Well inside the service's 10-second delivery timeout. */
export const LOOKUP_TIMEOUT_MS = 4_000;
/** An activation takes 20 s at worst: checkExists 4 s (GET /me) + 4 s (DELETE), create 4 s (GET /me) + 8 s (POST). */
export const SUBSCRIBE_TIMEOUT_MS = 8_000;

type Context = IHookFunctions | IWebhookFunctions;
type Credential = { apiKey?: unknown; baseUrl?: unknown };

export function log(context: Context, level: 'info' | 'warn', message: string): void {
	const where = { workflowId: context.getWorkflow().id, nodeName: context.getNode().name };
	context.logger[level](`Booking Service Trigger: ${message}`, where);
}

/** Undefined when the answer has no body. */
export async function requestOnce<T>(context: Context, options: BookingServiceRequest): Promise<T | undefined> {
	const once = { maxAttempts: 1, timeoutMs: LOOKUP_TIMEOUT_MS, ...options };
	return (await bookingServiceApiRequest.call(context, once)) as T | undefined;
}

/** The API key as pasted (trimmed) and the Base URL, or what is wrong with it; throws when n8n cannot read it. */
export async function readCredential(context: Context) {
	const credential = await context.getCredentials<Credential>(BOOKING_SERVICE_CREDENTIAL_TYPE);
	const apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
	return { apiKey, ...normaliseBaseUrl(credential.baseUrl) };
}

/** The account behind the credential's key (GET /me). */
export async function accountOf(context: Context): Promise<{ accountId: string } | { failure: unknown }> {
	try {
		const me = await requestOnce<{ id?: unknown }>(context, { method: 'GET', path: '/me' });
		if (typeof me?.id === 'string' && me.id !== '') return { accountId: me.id };
		return { failure: new Error('the answer to GET /me named no account') };
	} catch (failure) {
		return { failure };
	}
}

export type Session = Awaited<ReturnType<typeof openSession>>;

export async function openSession(context: IHookFunctions) {
	const credential = await readCredential(context);
	if ('problem' in credential) throw new NodeOperationError(context.getNode(), credential.problem);
	const { apiKey, baseUrl } = credential;
	const owner = ownerOf(context);
	let account: ReturnType<typeof accountOf> | undefined;
	return {
		context,
		owner,
		apiKey,
		baseUrl,
		account: async () => await (account ??= accountOf(context)),
		/** Whether the credential's key opens the record's sealed secret: the very key it was made with. */
		opens: (record: SubscriptionRecord) => openSecret(record.sealedSecret, apiKey, owner) !== undefined,
	};
}

/** 'unknown' only when the service did not say which account the key belongs to. */
export async function reaches(session: Session, record: SubscriptionRecord): Promise<'yes' | 'no' | 'unknown'> {
	if (record.baseUrl !== session.baseUrl) return 'no';
	if (session.opens(record)) return 'yes';
	const answer = await session.account();
	if ('failure' in answer) return 'unknown';
	return answer.accountId === record.accountId ? 'yes' : 'no';
}

/** Deletes a subscription the trigger no longer uses; returns it when it must be kept and tried again. */
export async function retire(session: Session, record: SubscriptionRecord, why: string) {
	const reach = await reaches(session, record);
	if (reach === 'no') {
		const where = `it lives at ${record.baseUrl} in account ${record.accountId}, and the credential now points at another account or Base URL`;
		const message = `webhook subscription ${record.id} (${why}) cannot be deleted: ${where}. Delete it in the Booking Service app of that account (${IN_THE_APP}); until then its deliveries here are refused.`;
		log(session.context, 'warn', message);
		return undefined;
	}
	let failure: string | undefined = 'the service did not say which account the API key belongs to';
	if (reach === 'yes') {
		const request = { method: 'DELETE', path: `/webhooks/${record.id}`, scope: 'webhooks:manage' } as const;
		const failureOf = (error: Error) => (isAlreadyGone(error) ? undefined : error.message);
		failure = await requestOnce(session.context, request).then(() => undefined, failureOf);
		if (failure === undefined) return undefined;
	}
	const message = `could not delete webhook subscription ${record.id} (${why}): ${failure}. It is kept and deleted at the next activation or deactivation; you can also delete it in the app (${IN_THE_APP}).`;
	log(session.context, 'warn', message);
	return record;
}

/** One more DELETE for each subscription an earlier DELETE failed for; those failing again stay recorded. */
export async function retireUndeleted(session: Session, nodeData: IDataObject, why: string): Promise<void> {
	const undeleted = readUndeleted(nodeData, session.owner);
	if (undeleted.length === 0) return;
	const kept = await Promise.all(undeleted.map(async (record) => await retire(session, record, why)));
	storeUndeleted(
		nodeData,
		session.owner,
		kept.filter((record) => record !== undefined),
	);
}
