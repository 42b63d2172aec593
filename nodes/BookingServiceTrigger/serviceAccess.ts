// What the subscription lifecycle needs from n8n and the service. n8n waits for activation and deactivation, so every
// request is a single attempt that never sits out a rate limit.
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { BOOKING_SERVICE_CREDENTIAL_TYPE, bookingServiceApiRequest } from '../shared/transport';
import type { BookingServiceRequest } from '../shared/transport';
import { normaliseBaseUrl } from '../shared/baseUrl';
import { isAlreadyGone } from '../shared/serviceErrors';
import type { SecretBinding } from './secretBox';
import type { AccountRef, Owner } from './subscription';

export type Context = IHookFunctions;

interface NodeIdentity {
	getWorkflow(): { id?: string };
	getNode(): { id: string };
	getInstanceId(): string;
}

export interface CurrentCredential extends AccountRef {
	apiKey: string;
	/** The account id behind the key (GET /me), asked at most once per hook call, on first need. */
	account(): Promise<string | undefined>;
}

/** Per request: the account look-up and leftovers' DELETEs on activation run in parallel, bounded by this. */
export const BACKGROUND_TIMEOUT_MS = 4_000;

export function ownerOf(context: NodeIdentity): Owner {
	const instanceId = context.getInstanceId();
	return {
		workflowId: String(context.getWorkflow().id ?? ''),
		nodeId: context.getNode().id,
		...(typeof instanceId === 'string' && instanceId !== '' ? { instanceId } : {}),
	};
}

/** The secret's binding leaves the instance out: a sealed value opens wherever the workflow and its key are. */
export function bindingOf(owner: Owner): SecretBinding {
	return { workflowId: owner.workflowId, nodeId: owner.nodeId };
}

export function logContext(context: Context) {
	return { workflowId: context.getWorkflow().id, nodeName: context.getNode().name };
}

export async function currentCredential(context: Context): Promise<CurrentCredential> {
	const credential = await context.getCredentials<{ apiKey?: unknown; baseUrl?: unknown }>(
		BOOKING_SERVICE_CREDENTIAL_TYPE,
	);
	const parsed = normaliseBaseUrl(credential.baseUrl);
	if ('problem' in parsed) throw new NodeOperationError(context.getNode(), parsed.problem);
	const apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
	let account: Promise<string | undefined> | undefined;
	return { apiKey, baseUrl: parsed.baseUrl, account: () => (account ??= accountIdOf(context)) };
}

export async function lifecycleRequest<T>(
	context: Context | IWebhookFunctions,
	request: BookingServiceRequest,
): Promise<T> {
	return (await bookingServiceApiRequest.call(context, { maxAttempts: 1, ...request })) as T;
}

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

/** DELETE with one attempt: 'deleted' (404/410 included: already gone), or 'failed' with the reason. */
export async function deleteOnService(
	context: Context | IWebhookFunctions,
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
