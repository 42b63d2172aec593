import type {
	IHookFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { isSelectedEvent, localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import {
	bookingEventOptions,
	bookingEventsSubtitle,
	eventTypesFilterOption,
	nameLanguageOption,
	readEventTypesFilter,
} from '../shared/descriptions';
import { BOOKING_SERVICE_CREDENTIAL_TYPE } from '../shared/transport';
import { searchEventTypes } from '../BookingService/methods/listSearch';
import { InMemorySeenEvents } from './dedupe';
import { parseDeliveryEnvelope, toTriggerItem } from './delivery';
import { bindingOf, ownerOf, subscribe, subscriptionExists, unsubscribe } from './lifecycle';
import { openSecret } from './secretBox';
import { TRIGGERS_KEPT_IN_MEMORY, unsealedSecrets } from './secretCache';
import { SIGNATURE_FAILURE_MESSAGES, signatureHeaderProblem, verifyDeliverySignature } from './signature';
import {
	isOwnedBy,
	normaliseEventSelection,
	readLeftoverSubscriptions,
	readStoredSubscription,
} from './subscription';

/** The leftovers whose secrets a failed delivery is tried against, newest first: enough for any real replacement. */
const MAX_LEFTOVERS_TRIED = 5;

/**
 * Event ids seen by this n8n process, per workflow, node and subscription: what drops a delivery the service sends
 * again. Per process and lost on a restart (see acceptDelivery for why not in static data). Bounded: 1,000 ids for a
 * day per subscription, for the 200 subscriptions used last.
 */
const seenInThisProcess = new InMemorySeenEvents(TRIGGERS_KEPT_IN_MEMORY);

/**
 * The secret behind a sealed value of this node, from the cache, or by reading the credential and unsealing it;
 * undefined when it does not open (recently failed ones are not even tried: see isKnownUnreadable).
 */
async function unsealedSecret(context: IWebhookFunctions, sealedSecret: string): Promise<string | undefined> {
	const binding = bindingOf(ownerOf(context));
	const cached = unsealedSecrets.get(binding, sealedSecret);
	if (cached !== undefined) return cached;
	const nowMs = Date.now();
	if (unsealedSecrets.isKnownUnreadable(binding, sealedSecret, nowMs)) return undefined;
	let secret: string | undefined;
	try {
		const credential = await context.getCredentials<{ apiKey?: unknown }>(BOOKING_SERVICE_CREDENTIAL_TYPE);
		const apiKey = typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
		secret = openSecret(sealedSecret, apiKey, binding);
	} catch (error) {
		// e.g. the credential was deleted: same outcome as an unreadable secret, but worth a line in the log
		context.logger.warn(`Booking Service Trigger could not read its credential: ${(error as Error).message}`);
	}
	if (secret === undefined) unsealedSecrets.rememberUnreadable(binding, sealedSecret, nowMs);
	else unsealedSecrets.remember(binding, sealedSecret, secret);
	return secret;
}

function selectedEvents(context: IWebhookFunctions): string[] {
	return normaliseEventSelection(context.getNodeParameter('events', []));
}

/**
 * Refuses a delivery: every refusal gets the same short 401, whatever the reason, so a sender learns nothing (not
 * even that an old captured delivery was genuine, or that the trigger cannot read its secret). The reason goes to
 * n8n's log only.
 */
function refuseDelivery(context: IWebhookFunctions, reason: string): IWebhookResponseData {
	context.logger.warn(`Booking Service Trigger refused a delivery: ${reason}`, {
		workflowId: context.getWorkflow().id,
		nodeName: context.getNode().name,
	});
	const response = context.getResponseObject();
	response.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
	response.end('Unauthorized');
	return { noWebhookResponse: true };
}

/** A 2xx answer without an execution: the service must not retry what was deliberately skipped. */
function acknowledgeWithoutRun(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, skipped: reason } };
}

/**
 * A delivery signed with the secret of a subscription this node replaced but could not delete: answered 410, which
 * makes the service delete that subscription (contract, Delivery rules 5). Only for a signature that verifies
 * completely — never for anything unverifiable, so a proxy that alters bodies cannot get a live subscription deleted.
 */
async function answerReplacedSubscription(
	context: IWebhookFunctions,
	rawBody: Buffer | string,
	header: string | string[] | undefined,
	nowSeconds: number,
): Promise<IWebhookResponseData | undefined> {
	const nodeData = context.getWorkflowStaticData('node');
	const leftovers = readLeftoverSubscriptions(nodeData, ownerOf(context));
	for (const leftover of leftovers.slice(-MAX_LEFTOVERS_TRIED).reverse()) {
		if (leftover.sealedSecret === undefined) continue;
		const secret = await unsealedSecret(context, leftover.sealedSecret);
		if (secret === undefined || !verifyDeliverySignature(rawBody, header, secret, nowSeconds).valid) continue;
		// The record stays: webhook() never writes static data (see acceptDelivery). The service deletes the
		// subscription on this 410, and the next activation's DELETE finds it gone (404) and drops the record.
		context.logger.info(
			`Booking Service Trigger answered 410 to a delivery from webhook subscription ${leftover.id}, which it replaced: the service deletes it.`,
			{ workflowId: context.getWorkflow().id, nodeName: context.getNode().name },
		);
		const response = context.getResponseObject();
		response.writeHead(410, { 'Content-Type': 'text/plain; charset=utf-8' });
		response.end('Gone');
		return { noWebhookResponse: true };
	}
	return undefined;
}

export class BookingServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Service Trigger',
		name: 'bookingServiceTrigger',
		icon: { light: 'file:bookingServiceTrigger.svg', dark: 'file:bookingServiceTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: bookingEventsSubtitle,
		description: 'Starts the workflow when a booking is created, rescheduled, cancelled or marked as a no-show',
		defaults: {
			name: 'Booking Service Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: BOOKING_SERVICE_CREDENTIAL_TYPE,
				required: true,
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answer as soon as the delivery is accepted: the service gives up after 10 seconds.
				responseMode: 'onReceived',
				// Without it n8n answers with the literal text "firstEntryJson". An empty 200 is all the service needs.
				responseData: 'noData',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					"The service delivers only to public https addresses, and n8n builds this trigger's URLs from its WEBHOOK_URL setting: on a local n8n, set WEBHOOK_URL to an https tunnel. Testing the trigger in the editor subscribes the Test URL, an active workflow the Production URL. The API key needs the \"Read and write\" permission (webhooks:manage).",
				name: 'urlNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: [],
				description: 'The booking changes that start the workflow',
				options: bookingEventOptions,
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Include Full Envelope',
						name: 'includeEnvelope',
						type: 'boolean',
						default: false,
						description:
							'Whether to add the whole delivery body (ID, type, createdAt, apiVersion and data) under "envelope"',
					},
					nameLanguageOption,
					eventTypesFilterOption,
				],
			},
		],
	};

	methods = { listSearch: { searchEventTypes } };

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await subscriptionExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await subscribe.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await unsubscribe.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// n8n keeps the bytes as received (a Buffer) beside the parsed body; only they can be verified.
		const rawBody: unknown = this.getRequestObject().rawBody;
		if (!(Buffer.isBuffer(rawBody) || typeof rawBody === 'string')) {
			return refuseDelivery(this, 'the raw request body is not available, so the signature cannot be checked');
		}
		const header = this.getHeaderData()['service-signature'];
		const headerProblem = signatureHeaderProblem(header);
		// Junk is refused before any credential is read or secret unsealed.
		if (headerProblem !== undefined) return refuseDelivery(this, SIGNATURE_FAILURE_MESSAGES[headerProblem]);

		const nowSeconds = Math.floor(Date.now() / 1000);
		const nodeData = this.getWorkflowStaticData('node');
		const stored = readStoredSubscription(nodeData);
		let failure = 'this trigger holds no subscription (activate the workflow again to subscribe)';
		if (stored !== undefined && isOwnedBy(stored, ownerOf(this))) {
			const secret = await unsealedSecret(this, stored.sealedSecret);
			if (secret === undefined) {
				failure =
					"the stored signing secret cannot be read with the credential's API key (it changed?): activate the workflow again to subscribe anew";
			} else {
				const verdict = verifyDeliverySignature(rawBody, header, secret, nowSeconds);
				if (verdict.valid) return acceptDelivery(this, rawBody, stored.id);
				failure = SIGNATURE_FAILURE_MESSAGES[verdict.reason];
			}
		}
		return (await answerReplacedSubscription(this, rawBody, header, nowSeconds)) ?? refuseDelivery(this, failure);
	}
}

/** A verified delivery: skipped when unselected, filtered out or already seen; otherwise it starts one execution. */
function acceptDelivery(
	context: IWebhookFunctions,
	rawBody: Buffer | string,
	subscriptionId: string,
): IWebhookResponseData {
	const envelope = parseDeliveryEnvelope(rawBody);
	if ('problem' in envelope) {
		// Signed by the service but not an event we understand: acknowledge, or it would be retried for days.
		context.logger.warn(`Booking Service Trigger ignored a signed delivery: ${envelope.problem}`);
		return acknowledgeWithoutRun(envelope.problem);
	}
	if (!isSelectedEvent(selectedEvents(context), envelope.type)) {
		return acknowledgeWithoutRun(`event type ${envelope.type} is not selected`);
	}
	const options = context.getNodeParameter('options', {}) as {
		includeEnvelope?: boolean;
		nameLanguage?: NameLanguage;
		eventTypes?: unknown;
	};
	const wantedEventTypes = readEventTypesFilter(options.eventTypes);
	const eventTypeId = (envelope.data.booking.eventType as { id?: unknown } | undefined)?.id;
	if (wantedEventTypes.length > 0 && !wantedEventTypes.includes(String(eventTypeId))) {
		return acknowledgeWithoutRun(`event type ${String(eventTypeId)} is not in the Event Type filter`);
	}

	// Duplicates are dropped from this process's memory only, never from static data. n8n saves a webhook()'s static
	// data whole — the copy it read when the request arrived — so any write here could put back a subscription record
	// that main replaced meanwhile (a re-activation racing a delivery; in queue mode they are different processes),
	// leaving the trigger unable to verify its own subscription. Durable de-duplication is Remove Duplicates on
	// eventId (README, "Duplicates").
	const scope = `${context.getWorkflow().id}/${context.getNode().id}/${subscriptionId}`;
	if (seenInThisProcess.checkAndRemember(scope, envelope.id, Date.now())) {
		return acknowledgeWithoutRun(`event ${envelope.id} was already received`);
	}

	const booking = localizeBooking(envelope.data.booking as Booking, options.nameLanguage ?? 'service');
	const item = toTriggerItem({ ...envelope, data: { ...envelope.data, booking } }, options.includeEnvelope ?? false);
	return { workflowData: [context.helpers.returnJsonArray(item)] };
}
