// What the trigger does with a delivery: junk is refused before any credential is read; the signature is checked
// against the current secret, then replaced subscriptions' (a drain's events are checked against the service, any
// other answered 410); a secret this process cannot open sends the event to apiCheck.ts; the rest get one 401.
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { BOOKING_SERVICE_CREDENTIAL_TYPE } from '../shared/transport';
import { setAsNewest } from '../shared/setAsNewest';
import { acknowledgeWithoutRun, answerGone, dedupeScope, refuseDelivery, runEvent } from './answers';
import { authenticateByApi } from './apiCheck';
import { parseDeliveryEnvelope } from './delivery';
import { hasDrained, isDraining } from './retirement';
import { openSecret } from './secretBox';
import type { SecretBinding } from './secretBox';
import { unsealedSecrets } from './secretCache';
import { bindingOf, deleteOnService, ownerOf } from './serviceAccess';
import { SIGNATURE_FAILURE_MESSAGES, signatureHeaderProblem, verifyDeliverySignature } from './signature';
import { isOwnedBy, readLeftoverSubscriptions, readStoredSubscription } from './subscription';
import type { LeftoverSubscription } from './subscription';
import { unverifiedWork } from './unverifiedBudget';

/** The leftovers whose secrets a failed delivery is tried against, newest first: enough for any real replacement. */
const MAX_LEFTOVERS_TRIED = 5;
const CLEANUP_TIMEOUT_MS = 5_000;

/** Drained subscriptions this process has already sent a DELETE for (bounded; a repeat would only find it gone). */
const deletionsSent = new Map<string, true>();
const DELETIONS_REMEMBERED = 1_000;

type OpenedSecret = { secret: string } | { unreadable: true } | { busy: true };

// Opened secrets are kept whether or not the request verifies: the sealed values come from static data, which a
// sender cannot add to, so a flood at one trigger costs one credential read instead of starving genuine deliveries.
class RequestSecrets {
	readonly #context: IWebhookFunctions;
	readonly #binding: SecretBinding;
	readonly #nowMs: number;
	#apiKey: Promise<string | undefined> | undefined;

	constructor(context: IWebhookFunctions, binding: SecretBinding, nowMs: number) {
		this.#context = context;
		this.#binding = binding;
		this.#nowMs = nowMs;
	}

	async open(sealedSecret: string): Promise<OpenedSecret> {
		const cached = unsealedSecrets.get(this.#binding, sealedSecret);
		if (cached !== undefined) return { secret: cached };
		if (unsealedSecrets.isKnownUnreadable(this.#binding, sealedSecret, this.#nowMs)) return { unreadable: true };
		const apiKey = await (this.#apiKey ??= this.#readApiKey());
		if (apiKey === undefined) return { busy: true };
		const secret = openSecret(sealedSecret, apiKey, this.#binding);
		if (secret !== undefined) {
			unsealedSecrets.remember(this.#binding, sealedSecret, secret);
			return { secret };
		}
		unsealedSecrets.rememberUnreadable(this.#binding, sealedSecret, this.#nowMs);
		return { unreadable: true };
	}

	async #readApiKey(): Promise<string | undefined> {
		if (!unverifiedWork.take(dedupeScope(this.#context), this.#nowMs)) return undefined;
		try {
			const credential = await this.#context.getCredentials<{ apiKey?: unknown }>(BOOKING_SERVICE_CREDENTIAL_TYPE);
			return typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
		} catch (error) {
			// e.g. the credential was deleted
			this.#context.logger.warn(`Booking Service Trigger could not read its credential: ${(error as Error).message}`);
			return '';
		}
	}
}

/** A drain's signature is not trusted: the rotated key may have leaked, and with a workflow export anyone can sign. */
async function answerReplaced(
	context: IWebhookFunctions,
	leftover: LeftoverSubscription,
	rawBody: Buffer | string,
	header: string | string[] | undefined,
	nowMs: number,
): Promise<IWebhookResponseData> {
	if (!isDraining(leftover, nowMs)) return answerGone(context, leftover.id);
	return await authenticateByApi(context, rawBody, header, madeBefore(leftover));
}

/** Events made before this time reached only the draining subscription; without a replacement yet, all of them. */
function madeBefore(leftover: LeftoverSubscription): number {
	const replacedMs = leftover.replacedAt === undefined ? Number.NaN : Date.parse(leftover.replacedAt);
	return Number.isNaN(replacedMs) ? Number.POSITIVE_INFINITY : replacedMs;
}

/** Activation deletes drained subscriptions too, but a workflow may stay active for months. */
function deleteDrained(context: IWebhookFunctions, leftovers: LeftoverSubscription[], nowMs: number): void {
	for (const leftover of leftovers) {
		if (!hasDrained(leftover, nowMs) || deletionsSent.has(leftover.id)) continue;
		setAsNewest(deletionsSent, leftover.id, true, DELETIONS_REMEMBERED);
		void deleteOnService(context, leftover.id, CLEANUP_TIMEOUT_MS).then((result) => {
			context.logger.info(
				result.outcome === 'deleted'
					? `Booking Service Trigger deleted webhook subscription ${leftover.id}, replaced after a key rotation and drained.`
					: `Booking Service Trigger could not delete drained webhook subscription ${leftover.id} (${result.reason}); the next activation tries again.`,
			);
		});
	}
}

export async function receiveDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	// n8n keeps the bytes as received (a Buffer) beside the parsed body; only they can be verified.
	const rawBody: unknown = context.getRequestObject().rawBody;
	if (!(Buffer.isBuffer(rawBody) || typeof rawBody === 'string')) {
		return refuseDelivery(context, 'the raw request body is not available, so the signature cannot be checked');
	}
	const header = context.getHeaderData()['service-signature'];
	const headerProblem = signatureHeaderProblem(header);
	if (headerProblem !== undefined) return refuseDelivery(context, SIGNATURE_FAILURE_MESSAGES[headerProblem]);

	const nowMs = Date.now();
	const nowSeconds = Math.floor(nowMs / 1000);
	const owner = ownerOf(context);
	const nodeData = context.getWorkflowStaticData('node');
	const secrets = new RequestSecrets(context, bindingOf(owner), nowMs);
	const leftovers = readLeftoverSubscriptions(nodeData, owner);
	deleteDrained(context, leftovers, nowMs);

	// The latest time before which an unverifiable delivery may report an event: none while no secret is unreadable.
	let uncheckableBefore = Number.NEGATIVE_INFINITY;
	let failure = 'this trigger holds no subscription (activate the workflow again to subscribe)';
	const stored = readStoredSubscription(nodeData);
	if (stored !== undefined && isOwnedBy(stored, owner)) {
		const opened = await secrets.open(stored.sealedSecret);
		if ('secret' in opened) {
			const verdict = verifyDeliverySignature(rawBody, header, opened.secret, nowSeconds);
			if (verdict.valid) {
				const envelope = parseDeliveryEnvelope(rawBody);
				// Signed by the service but not an event we understand: acknowledge, or it would be retried for days.
				if ('problem' in envelope) return acknowledgeWithoutRun(envelope.problem);
				return runEvent(context, envelope);
			}
			failure = SIGNATURE_FAILURE_MESSAGES[verdict.reason];
		} else if ('busy' in opened) {
			failure = 'too many unverified requests arrived to read the credential now';
		} else {
			uncheckableBefore = Number.POSITIVE_INFINITY;
			failure = "the stored signing secret cannot be read with the credential's API key";
		}
	}

	for (const leftover of leftovers.slice(-MAX_LEFTOVERS_TRIED).reverse()) {
		if (leftover.sealedSecret === undefined) continue;
		const opened = await secrets.open(leftover.sealedSecret);
		if ('secret' in opened) {
			if (!verifyDeliverySignature(rawBody, header, opened.secret, nowSeconds).valid) continue;
			// webhook() writes no static data: after a 410 the next activation's DELETE finds it gone and drops it.
			return await answerReplaced(context, leftover, rawBody, header, nowMs);
		}
		if ('unreadable' in opened && isDraining(leftover, nowMs)) {
			uncheckableBefore = Math.max(uncheckableBefore, madeBefore(leftover));
		}
	}

	if (uncheckableBefore > Number.NEGATIVE_INFINITY) {
		return await authenticateByApi(context, rawBody, header, uncheckableBefore);
	}
	return refuseDelivery(context, failure);
}
