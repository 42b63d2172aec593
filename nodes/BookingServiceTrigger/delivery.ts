// One delivery: the raw body and signature header → the signing secret (memory, or opened with the credential's key) →
// verified by its signature, or, when a new key cannot open the secret, by reading its booking (serviceCheck.ts) → the
// event filter → "has this run?" (memory.ts) → one uniform 401, an acknowledgement without a run, or one execution.
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isSelectedEvent, localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import { readEventTypesFilter } from '../shared/descriptions';
import { IN_THE_APP } from '../shared/setupTexts';
import { keyOwners, workBudget } from './budget';
import { checkedEventId, factOf, keyPrint, rotationNoticeDue, runMemory, scopeOf, secretMemory } from './memory';
import type { KeyState, Proof } from './memory';
import { isOwnedBy, normaliseEventSelection, ownerOf, readSubscription } from './records';
import type { StoredSubscription } from './records';
import { accountOf, log, readCredential } from './service';
import { confirmWithService, uncheckable } from './serviceCheck';
import type { RawBody, SignatureHeader } from './signingSecret';
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

type Unverified = { rawBody: RawBody; header: SignatureHeader; stored: StoredSubscription; nowMs: number; print: string };

/** Long enough for any real id, short enough that a hostile body cannot bloat a log line. */
const MAX_EVENT_ID_LENGTH = 200;

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseDeliveryEnvelope(rawBody: RawBody): DeliveryEnvelope | { problem: string } {
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
	log(context, 'warn', `refused a delivery: ${reason}`);
	context.getResponseObject().writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Unauthorized');
	return { noWebhookResponse: true };
}

/** A 2xx without an execution: the service must not retry what was deliberately skipped. */
export function acknowledge(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, skipped: reason } };
}

type TriggerOptions = { includeEnvelope?: boolean; nameLanguage?: NameLanguage; eventTypes?: unknown };
const optionsOf = (context: IWebhookFunctions) => context.getNodeParameter('options', {}) as TriggerOptions;

export function notWantedReason(context: IWebhookFunctions, envelope: DeliveryEnvelope): string | undefined {
	const selected = normaliseEventSelection(context.getNodeParameter('events', []));
	if (!isSelectedEvent(selected, envelope.type)) return `event type ${envelope.type} is not selected`;
	const wanted = readEventTypesFilter(optionsOf(context).eventTypes);
	const eventTypeId = String((envelope.data.booking.eventType as { id?: unknown } | undefined)?.id);
	if (wanted.length > 0 && !wanted.includes(eventTypeId))
		return `event type ${eventTypeId} is not in the Event Type filter`;
	return undefined;
}

/** A checked delivery emits the service's booking (put into `envelope` by serviceCheck.ts), none of the request's. */
export function answerEvent(context: IWebhookFunctions, event: DeliveryEnvelope, proof: Proof): IWebhookResponseData {
	const notWanted = notWantedReason(context, event);
	if (notWanted !== undefined) return acknowledge(notWanted);
	const claim = runMemory.claim(scopeOf(context), event.id, factOf(event.type, event.data.booking), proof);
	if (claim === 'repeat') return acknowledge(`event ${event.id} was already received`);
	// A fact that ran already (from a request checked against the service, or signed): acknowledged, not refused — a
	// refusal of a genuine delivery on each retry would count towards the service disabling the subscription.
	const bookingId = String(event.data.booking.id);
	if (claim === 'factRan') return acknowledge(`what event ${event.id} reports of booking ${bookingId} already ran`);
	const options = optionsOf(context);
	const booking = localizeBooking(event.data.booking as Booking, options.nameLanguage ?? 'service');
	const withEnvelope = proof === 'signed' && options.includeEnvelope === true;
	const item = toTriggerItem({ ...event, data: { ...event.data, booking } }, withEnvelope);
	return { workflowData: [context.helpers.returnJsonArray(item)] };
}

/** Whether the credential holds the key of `print` now: the builder may have switched it since it was last read. */
const holdsKey = async (context: IWebhookFunctions, print: string) =>
	await readCredential(context).then((credential) => keyPrint(credential) === print, () => false);

/** The secret or why the key cannot open it, remembered (a flood costs one credential read); unknown is no key change. */
type KeyAnswer = { state: KeyState; fresh: boolean } | { unknown: string };
async function keyStateOf(context: IWebhookFunctions, stored: StoredSubscription, nowMs: number): Promise<KeyAnswer> {
	const remembered = secretMemory.get(stored, stored.sealedSecret, nowMs);
	if (remembered !== undefined) return { state: remembered, fresh: false };
	if (!workBudget.take(scopeOf(context), nowMs))
		return { unknown: 'too many unverified requests arrived to read the credential now' };
	const credential = await readCredential(context).catch((error: Error) => ({ unreadable: error.message }));
	if ('unreadable' in credential) return { unknown: `its credential could not be read: ${credential.unreadable}` };
	const secret = openSecret(stored.sealedSecret, credential.apiKey, stored);
	let state: KeyState = secret === undefined ? 'switched' : { secret };
	if (secret === undefined && 'baseUrl' in credential && credential.baseUrl === stored.baseUrl) {
		const print = keyPrint(credential);
		const account = await keyOwners.get(print, nowMs, async () => {
			const answer = await accountOf(context);
			const held = await holdsKey(context, print);
			return held ? answer : { failure: new Error('the credential changed while the service was asked') };
		}).answer;
		if ('failure' in account)
			return { unknown: `the service did not say whose the API key is: ${(account.failure as Error).message}` };
		state = account.accountId === stored.accountId ? { rotated: print } : 'switched';
	}
	secretMemory.remember(stored, stored.sealedSecret, state, nowMs);
	return { state, fresh: true };
}

/** After a key rotation: runs only what the service's booking shows happened since the subscription existed. */
async function answerUnverifiable(context: IWebhookFunctions, { rawBody, header, stored, nowMs, print }: Unverified) {
	const envelope = parseDeliveryEnvelope(rawBody);
	if ('problem' in envelope) return refuse(context, `${UNVERIFIABLE}, and ${envelope.problem}`);
	const problem = uncheckable(envelope, header, nowMs);
	if (problem !== undefined) return refuse(context, `${UNVERIFIABLE}, and ${problem}`);
	// Nothing is answered before the service confirms the event: an unverified sender learns nothing from a 2xx.
	// Read only with the key proven to be of the subscription's account: after a switch, forgotten and asked again.
	const keyHolds = async () => {
		const same = await holdsKey(context, print);
		if (!same) secretMemory.forget(stored, stored.sealedSecret);
		return same;
	};
	const confirmed = await confirmWithService(context, envelope, stored, nowMs, keyHolds);
	if ('problem' in confirmed) return refuse(context, `${UNVERIFIABLE}, and ${confirmed.problem}`);
	// Told once where the builder looks, as a failed execution, only on a request whose fact ran already (a retry or
	// a copy): a builder who republishes at once then loses no delivery. uncheckable() let only facts through.
	const fact = factOf(envelope.type, confirmed.booking) as string;
	const subject = `${String(envelope.data.booking.id)}/${envelope.type}`;
	const claim = runMemory.claim(scopeOf(context), envelope.id, fact, 'checked', false, subject);
	const ran = claim !== 'run';
	if (rotationNoticeDue(JSON.stringify([scopeOf(context), stored.id]), nowMs, ran)) {
		const notice = `The credential's API key changed: for an hour this trigger has confirmed each delivery by reading its booking from the Booking Service, because the signing secret of webhook subscription ${stored.id} was sealed with the old key. Unpublish and publish the workflow to renew the subscription. (What this delivery reports ran already. This is shown once.)`;
		throw new NodeOperationError(context.getNode(), notice);
	}
	if (claim === 'repeat') return acknowledge(`event ${envelope.id} was already received`); // a retry of a signed run
	const confirmedEvent = `event ${envelope.id} confirmed by reading booking ${String(envelope.data.booking.id)}`;
	log(context, 'info', `${confirmedEvent} from the service (the API key changed).`);
	// Nothing the sender chose: the id derives from the fact, the time is the booking's last change.
	const event = { id: checkedEventId(fact), type: envelope.type, createdAt: confirmed.booking.updatedAt, body: {} };
	const answer = answerEvent(context, { ...event, data: { booking: confirmed.booking } }, 'checked');
	if (answer.workflowData !== undefined) runMemory.noteChecked(scopeOf(context), envelope.id, subject);
	return answer;
}

export async function receiveDelivery(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	// n8n keeps the bytes as received beside the parsed body; only they can be verified.
	const rawBody: unknown = context.getRequestObject().rawBody;
	if (!(Buffer.isBuffer(rawBody) || typeof rawBody === 'string'))
		return refuse(context, 'the raw request body is not available, so the signature cannot be checked');
	const header = readSignatureHeader(context.getHeaderData()['service-signature']);
	if (typeof header === 'string') return refuse(context, SIGNATURE_FAILURE_MESSAGES[header]);
	const stored = readSubscription(context.getWorkflowStaticData('node'));
	if (stored === undefined || !isOwnedBy(stored, ownerOf(context)))
		return refuse(context, 'this trigger holds no subscription (activate the workflow again to subscribe)');

	const nowMs = Date.now();
	const key = await keyStateOf(context, stored, nowMs);
	if ('unknown' in key) return refuse(context, key.unknown);
	if (typeof key.state === 'object' && 'rotated' in key.state) {
		const message = `the credential's API key changed (same account): each delivery is checked by reading its booking from the service. Unpublish and publish the workflow to renew its webhook subscription ${stored.id}.`;
		if (key.fresh) log(context, 'info', message);
		return await answerUnverifiable(context, { rawBody, header, stored, nowMs, print: key.state.rotated });
	}
	if (key.state === 'switched') {
		// Shown once a minute as a failed execution, where the workflow's owner looks; n8n calls no hook for an edited
		// credential, so nothing else would tell.
		const switched = `The credential now points at another Booking Service account or Base URL than this trigger's webhook subscription ${stored.id}: unpublish and publish the workflow to subscribe there, and delete the old subscription in the old account's app (${IN_THE_APP}).`;
		if (key.fresh) throw new NodeOperationError(context.getNode(), switched);
		return refuse(context, switched);
	}
	const failure = verifyDeliverySignature(rawBody, header, key.state.secret, Math.floor(nowMs / 1000));
	if (failure !== undefined) return refuse(context, SIGNATURE_FAILURE_MESSAGES[failure]);
	const envelope = parseDeliveryEnvelope(rawBody);
	// Signed by the service but not an event we understand: acknowledged, or it would be retried for days.
	if ('problem' in envelope) return acknowledge(envelope.problem);
	return answerEvent(context, envelope, 'signed');
}
