// What the subscription lifecycle asks of the service, one hook call at a time: the credential, the account behind its
// key, and deleting a subscription only with a key proven to reach its account. n8n waits for the hooks, so every
// request is one attempt with a deadline: a 429 fails at once instead of holding n8n for its Retry-After.
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normaliseBaseUrl } from '../shared/baseUrl';
import { isAlreadyGone } from '../shared/serviceErrors';
import { BOOKING_SERVICE_CREDENTIAL_TYPE, bookingServiceApiRequest } from '../shared/transport';
import type { BookingServiceRequest } from '../shared/transport';
import { bindingOf, IN_THE_APP, ownerOf, readUndeleted, storeUndeleted } from './records';
import type { Owner, SubscriptionRecord } from './records';
import { accountOf, LOOKUP_TIMEOUT_MS } from './serviceCheck';
import { openSecret } from './signingSecret';

// An activation takes 20 s at worst: checkExists 4 s (GET /me) + 4 s (DELETE), create 4 s (GET /me) + 8 s (POST);
// n8n's clean-up after a failure sends nothing (RecentActivations).
export const SUBSCRIBE_TIMEOUT_MS = 8_000;

export interface Session {
	context: IHookFunctions;
	owner: Owner;
	apiKey: string;
	baseUrl: string;
	account(): Promise<{ accountId: string } | { failure: unknown }>;
	/** Whether the credential's key opens the record's sealed secret: the very key it was made with. */
	opens(record: SubscriptionRecord): boolean;
	log(level: 'info' | 'warn', message: string): void;
}

export async function request<T>(context: IHookFunctions, options: BookingServiceRequest): Promise<T> {
	return (await bookingServiceApiRequest.call(context, {
		maxAttempts: 1,
		timeoutMs: LOOKUP_TIMEOUT_MS,
		...options,
	})) as T;
}

export async function openSession(context: IHookFunctions): Promise<Session> {
	type Credential = { apiKey?: unknown; baseUrl?: unknown };
	const credential = await context.getCredentials<Credential>(BOOKING_SERVICE_CREDENTIAL_TYPE);
	const parsed = normaliseBaseUrl(credential.baseUrl);
	if ('problem' in parsed) throw new NodeOperationError(context.getNode(), parsed.problem);
	const apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
	const owner = ownerOf(context);
	let account: ReturnType<typeof accountOf> | undefined;
	return {
		context,
		owner,
		apiKey,
		baseUrl: parsed.baseUrl,
		account: async () => await (account ??= accountOf(context)),
		opens: (record) => openSecret(record.sealedSecret, apiKey, bindingOf(owner)) !== undefined,
		log: (level, message) =>
			context.logger[level](`Booking Service Trigger: ${message}`, {
				workflowId: context.getWorkflow().id,
				nodeName: context.getNode().name,
			}),
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
export async function retire(
	session: Session,
	record: SubscriptionRecord,
	why: string,
): Promise<SubscriptionRecord | undefined> {
	const reach = await reaches(session, record);
	if (reach === 'no') {
		const where = `it lives at ${record.baseUrl} in account ${record.accountId}, and the credential now points at another account or Base URL`;
		const message = `webhook subscription ${record.id} (${why}) cannot be deleted: ${where}. Delete it in the Booking Service app of that account (${IN_THE_APP}); until then its deliveries here are refused.`;
		session.log('warn', message);
		return undefined;
	}
	let failure = 'the service did not say which account the API key belongs to';
	if (reach === 'yes') {
		try {
			await request(session.context, { method: 'DELETE', path: `/webhooks/${record.id}`, scope: 'webhooks:manage' });
			return undefined;
		} catch (error) {
			if (isAlreadyGone(error)) return undefined;
			failure = (error as Error).message;
		}
	}
	const message = `could not delete webhook subscription ${record.id} (${why}): ${failure}. It is kept and deleted at the next activation or deactivation; you can also delete it in the app (${IN_THE_APP}).`;
	session.log('warn', message);
	return record;
}

/** One more DELETE for each subscription an earlier DELETE failed for; those failing again stay recorded. */
export async function retireUndeleted(session: Session, nodeData: IDataObject, why: string): Promise<void> {
	const undeleted = readUndeleted(nodeData, session.owner);
	if (undeleted.length === 0) return;
	const kept = await Promise.all(undeleted.map(async (record) => await retire(session, record, why)));
	storeUndeleted(nodeData, session.owner, kept.filter((record) => record !== undefined));
}
