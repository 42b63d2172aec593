// One delivery, top to bottom: the raw body and the signature header → the signing secret (from memory, or opened
// with the credential's API key) → verified by its signature, or, when a new API key cannot open the secret, by
// reading its booking from the service (serviceCheck.ts) → the event filter → "has this run?" (memory.ts) → the
// answer: one uniform 401, an acknowledgement without a run, or one execution.
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { isSelectedEvent, localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import { readEventTypesFilter } from '../shared/descriptions';
import { BOOKING_SERVICE_CREDENTIAL_TYPE } from '../shared/transport';
import { factOf, runMemory, scopeOf, secretMemory, workBudget } from './memory';
import type { Proof } from './memory';
import { bindingOf, isOwnedBy, normaliseEventSelection, ownerOf, readSubscription } from './records';
import type { StoredSubscription } from './records';
import type { SignatureHeader } from './signingSecret';
import { confirmWithService, uncheckable } from './serviceCheck';
import { openSecret, readSignatureHeader, SIGNATURE_FAILURE_MESSAGES, verifyDeliverySignature } from './signingSecret';

export interface DeliveryEnvelope {
	id: string;
	type: string;
	createdAt: unknown;
	data: IDataObject & { booking: IDataObject };
	/** The whole body as parsed, for "Include Full Envelope". */
	body: IDataObject;
}

const UNVERIFIABLE = 'its signature cannot be checked (the API key changed)';

/** Long enough for any real id, short enough that a hostile body cannot bloat a log line. */
const MAX_EVENT_ID_LENGTH = 200;

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseDeliveryEnvelope(rawBody: Buffer | string): DeliveryEnvelope | { problem: string } {
	let body: unknown;
	try {
		body = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
	} catch {
		return { problem: 'The body is not JSON' };
	}
	if (!isObject(body)) return { problem: 'The body is not a JSON object' };
	const { id, type, data } = body;
	if (typeof id !== 'string' || id === '' || id.length > MAX_EVENT_ID_LENGTH)
		return { problem: 'The body has no usable event id' };
	if (typeof type !== 'string' || type === '') return { problem: 'The body has no event type' };
	if (!isObject(data) || !isObject(data.booking)) return { problem: 'The body has no data.booking object' };
	return { id, type, createdAt: body.createdAt, data: data as DeliveryEnvelope['data'], body };
}

const OWN_KEYS = new Set(['eventId', 'eventType', 'eventCreatedAt', 'booking', 'envelope']);

/** eventId, eventType, eventCreatedAt, booking, and every other key of `data` (e.g. a reschedule's previous times). */
export function toTriggerItem(envelope: DeliveryEnvelope, includeEnvelope: boolean): IDataObject {
	// Built with fromEntries: a key such as "__proto__" in the body stays a plain property.
	return Object.fromEntries([
		['eventId', envelope.id],
		['eventType', envelope.type],
		['eventCreatedAt', envelope.createdAt],
		['booking', envelope.data.booking],
		...Object.entries(envelope.data).filter(([key]) => !OWN_KEYS.has(key)),
		...(includeEnvelope ? [['envelope', envelope.body]] : []),
	]) as IDataObject;
}

/** The same short 401 whatever the reason, so a sender learns nothing; the reason goes to n8n's log only. */
export function refuse(context: IWebhookFunctions, reason: string): IWebhookResponseData {
	context.logger.warn(`Booking Service Trigger refused a delivery: ${reason}`, {
		workflowId: context.getWorkflow().id,
		nodeName: context.getNode().name,
	});
	const response = context.getResponseObject();
	response.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
	response.end('Unauthorized');
	return { noWebhookResponse: true };
}

/** A 2xx without an execution: the service must not retry what was deliberately skipped. */
export function acknowledge(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, skipped: reason } };
}

type TriggerOptions = { includeEnvelope?: boolean; nameLanguage?: NameLanguage; eventTypes?: unknown };
const optionsOf = (context: IWebhookFunctions) => context.getNodeParameter('options', {}) as TriggerOptions;

export function notWantedReason(context: IWebhookFunctions, envelope: DeliveryEnvelope): string | undefined {
	if (!isSelectedEvent(normaliseEventSelection(context.getNodeParameter('events', [])), envelope.type)) {
		return `event type ${envelope.type} is not selected`;
	}
	const wanted = readEventTypesFilter(optionsOf(context).eventTypes);
	const eventTypeId = String((envelope.data.booking.eventType as { id?: unknown } | undefined)?.id);
	return wanted.length === 0 || wanted.includes(eventTypeId)
		? undefined
		: `event type ${eventTypeId} is not in the Event Type filter`;
}

/** A checked delivery emits the service's booking (put into `envelope` by serviceCheck.ts), none of the request's. */
export function answerEvent(
	context: IWebhookFunctions,
	envelope: DeliveryEnvelope,
	proof: Proof,
): IWebhookResponseData {
	const notWanted = notWantedReason(context, envelope);
	if (notWanted !== undefined) return acknowledge(notWanted);
	const claim = runMemory.claim(scopeOf(context), envelope.id, factOf(envelope.type, envelope.data.booking), proof);
	if (claim === 'repeat') return acknowledge(`event ${envelope.id} was already received`);
	const what = `what event ${envelope.id} reports of booking ${String(envelope.data.booking.id)} already ran`;
	if (claim === 'factRan' && proof === 'signed')
		return acknowledge(`${what} from a request checked against the service`);
	if (claim === 'factRan')
		return refuse(
			context,
			`${UNVERIFIABLE}, and ${what} (a replay, or a later event of a change that ran with the booking's newest state)`,
		);
	const options = optionsOf(context);
	const booking = localizeBooking(envelope.data.booking as Booking, options.nameLanguage ?? 'service');
	const item = toTriggerItem(
		{ ...envelope, data: { ...envelope.data, booking } },
		proof === 'signed' && options.includeEnvelope === true,
	);
	return { workflowData: [context.helpers.returnJsonArray(item)] };
}

/**
 * The stored subscription's secret, or 'unreadable' when the credential's key cannot open it (the key changed), or
 * 'busy' when the budget for unverified work is spent. Opened secrets stay in memory for a while, so a flood of
 * forged requests costs one credential read; only static data's sealed values can open, which no sender adds to.
 */
async function signingSecretOf(
	context: IWebhookFunctions,
	stored: StoredSubscription,
	nowMs: number,
): Promise<{ secret: string } | 'unreadable' | 'busy'> {
	const binding = bindingOf(stored);
	const remembered = secretMemory.get(binding, stored.sealedSecret, nowMs);
	if (remembered !== undefined) return remembered;
	if (!workBudget.take(scopeOf(context), nowMs)) return 'busy';
	let apiKey = '';
	try {
		const credential = await context.getCredentials<{ apiKey?: unknown }>(BOOKING_SERVICE_CREDENTIAL_TYPE);
		apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
	} catch (error) {
		context.logger.warn(`Booking Service Trigger could not read its credential: ${(error as Error).message}`);
	}
	const secret = openSecret(stored.sealedSecret, apiKey, binding);
	secretMemory.remember(binding, stored.sealedSecret, secret, nowMs);
	return secret === undefined ? 'unreadable' : { secret };
}

/** After a key rotation: the request's booking, read from the service, must show that the event happened. */
async function answerUnverifiable(
	context: IWebhookFunctions,
	rawBody: Buffer | string,
	header: SignatureHeader,
	nowMs: number,
): Promise<IWebhookResponseData> {
	const envelope = parseDeliveryEnvelope(rawBody);
	if ('problem' in envelope) return refuse(context, `${UNVERIFIABLE}, and ${envelope.problem}`);
	const problem = uncheckable(envelope, header, nowMs);
	if (problem !== undefined) return refuse(context, `${UNVERIFIABLE}, and ${problem}`);
	const scope = scopeOf(context);
	// The service's duplicates and retries of an event that ran are acknowledged, or each would count as a failure.
	if (runMemory.hasRun(scope, envelope.id)) return acknowledge(`event ${envelope.id} was already received`);
	// Nothing else is answered before the service confirms the event: an unverified sender learns nothing from a 2xx.
	if (!workBudget.take(scope, nowMs))
		return refuse(context, `${UNVERIFIABLE}, and too many unverified requests arrived to check it now`);
	const confirmed = await confirmWithService(context, envelope);
	if ('problem' in confirmed) return refuse(context, `${UNVERIFIABLE}, and ${confirmed.problem}`);
	context.logger.info(
		`Booking Service Trigger could not check the signature of event ${envelope.id} (the API key changed) and confirmed it by reading booking ${String(envelope.data.booking.id)} from the service.`,
		{ workflowId: context.getWorkflow().id, nodeName: context.getNode().name },
	);
	return answerEvent(context, { ...envelope, data: { booking: confirmed.booking }, body: {} }, 'checked');
}

export async function receiveDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	// n8n keeps the bytes as received beside the parsed body; only they can be verified.
	const rawBody: unknown = context.getRequestObject().rawBody;
	if (!(Buffer.isBuffer(rawBody) || typeof rawBody === 'string')) {
		return refuse(context, 'the raw request body is not available, so the signature cannot be checked');
	}
	const header = readSignatureHeader(context.getHeaderData()['service-signature']);
	if (typeof header === 'string') return refuse(context, SIGNATURE_FAILURE_MESSAGES[header]);
	const stored = readSubscription(context.getWorkflowStaticData('node'));
	if (stored === undefined || !isOwnedBy(stored, ownerOf(context))) {
		return refuse(context, 'this trigger holds no subscription (activate the workflow again to subscribe)');
	}

	const nowMs = Date.now();
	const opened = await signingSecretOf(context, stored, nowMs);
	if (opened === 'busy') return refuse(context, 'too many unverified requests arrived to read the credential now');
	if (opened === 'unreadable') return await answerUnverifiable(context, rawBody, header, nowMs);
	const failure = verifyDeliverySignature(rawBody, header, opened.secret, Math.floor(nowMs / 1000));
	if (failure !== undefined) return refuse(context, SIGNATURE_FAILURE_MESSAGES[failure]);
	const envelope = parseDeliveryEnvelope(rawBody);
	// Signed by the service but not an event we understand: acknowledged, or it would be retried for days.
	if ('problem' in envelope) return acknowledge(envelope.problem);
	return answerEvent(context, envelope, 'signed');
}
