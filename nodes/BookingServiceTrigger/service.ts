// What the subscription lifecycle asks of the service, one hook call at a time: the credential, the account behind its
// key (asked at most once), and deleting a subscription only with a key proven to reach its account. n8n waits for
// the hooks, so every request is one bounded attempt: a 429 fails at once instead of holding n8n for its Retry-After.
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normaliseBaseUrl } from '../shared/baseUrl';
import { isAlreadyGone } from '../shared/serviceErrors';
import { BOOKING_SERVICE_CREDENTIAL_TYPE, bookingServiceApiRequest } from '../shared/transport';
import type { BookingServiceRequest } from '../shared/transport';
import { bindingOf, ownerOf, readUndeleted, storeUndeleted } from './records';
import type { Owner, SubscriptionRecord } from './records';
import { openSecret } from './signingSecret';

// Worst cases: checkExists and delete 5 s (GET /me) + 5 s (DELETEs, in parallel); create 5 s + 10 s (POST).
const LOOKUP_TIMEOUT_MS = 5_000;
export const SUBSCRIBE_TIMEOUT_MS = 10_000;

export const IN_THE_APP = 'Settings → API keys and webhooks';

export type AccountAnswer = { accountId: string } | { failure: unknown };

export interface Session {
	context: IHookFunctions;
	owner: Owner;
	apiKey: string;
	baseUrl: string;
	account(): Promise<AccountAnswer>;
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

async function lookUpAccount(context: IHookFunctions): Promise<AccountAnswer> {
	try {
		const me = await request<{ id?: unknown } | undefined>(context, { method: 'GET', path: '/me' });
		if (typeof me?.id === 'string' && me.id !== '') return { accountId: me.id };
		return { failure: new Error('the answer to GET /me named no account') };
	} catch (failure) {
		return { failure };
	}
}

export async function openSession(context: IHookFunctions): Promise<Session> {
	type Credential = { apiKey?: unknown; baseUrl?: unknown };
	const credential = await context.getCredentials<Credential>(BOOKING_SERVICE_CREDENTIAL_TYPE);
	const parsed = normaliseBaseUrl(credential.baseUrl);
	if ('problem' in parsed) throw new NodeOperationError(context.getNode(), parsed.problem);
	const apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
	const owner = ownerOf(context);
	let account: Promise<AccountAnswer> | undefined;
	return {
		context,
		owner,
		apiKey,
		baseUrl: parsed.baseUrl,
		account: async () => await (account ??= lookUpAccount(context)),
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
		session.log(
			'warn',
			`webhook subscription ${record.id} (${why}) cannot be deleted: ${where}. Delete it in the Booking Service app of that account (${IN_THE_APP}); until then its deliveries here are refused.`,
		);
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
	session.log(
		'warn',
		`could not delete webhook subscription ${record.id} (${why}): ${failure}. It is kept and deleted at the next activation or deactivation; you can also delete it in the app (${IN_THE_APP}).`,
	);
	return record;
}

/** One more DELETE for each subscription an earlier DELETE failed for; those failing again stay recorded. */
export async function retireUndeleted(session: Session, nodeData: IDataObject, why: string): Promise<void> {
	const undeleted = readUndeleted(nodeData, session.owner);
	if (undeleted.length === 0) return;
	const kept = await Promise.all(undeleted.map(async (record) => await retire(session, record, why)));
	storeUndeleted(
		nodeData,
		kept.filter((record) => record !== undefined),
	);
}
