// How the trigger answers a request receive.ts has judged: one uniform 401, a 410 for a replaced subscription, an
// acknowledgement without a run, or one execution per event.
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { isSelectedEvent, localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import { readEventTypesFilter } from '../shared/descriptions';
import { BookingFactsRun, factOf } from './bookingStates';
import { InMemorySeenEvents } from './dedupe';
import { toTriggerItem } from './delivery';
import type { DeliveryEnvelope } from './delivery';
import { normaliseEventSelection } from './subscription';

/** How many triggers this process remembers event ids for, the ones that received deliveries last. */
const TRIGGERS_DEDUPED_IN_MEMORY = 200;

// Event ids seen by this process per trigger and URL kind: drops a delivery the service sends again, also through a
// drained subscription. Lost on a restart (runEvent says why not static data); 1,000 ids for a day per trigger.
export const seenInThisProcess = new InMemorySeenEvents(TRIGGERS_DEDUPED_IN_MEMORY);

/** The booking facts each trigger ran, per the same scope: what runs a fact proven by the service once (bookingStates.ts). */
export const factsRun = new BookingFactsRun();

export function dedupeScope(context: IWebhookFunctions): string {
	return JSON.stringify([context.getInstanceId(), context.getWorkflow().id, context.getNode().id, context.getMode()]);
}

function logContext(context: IWebhookFunctions) {
	return { workflowId: context.getWorkflow().id, nodeName: context.getNode().name };
}

/** The same short 401 whatever the reason, so a sender learns nothing; the reason goes to n8n's log only. */
export function refuseDelivery(context: IWebhookFunctions, reason: string): IWebhookResponseData {
	context.logger.warn(`Booking Service Trigger refused a delivery: ${reason}`, logContext(context));
	const response = context.getResponseObject();
	response.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
	response.end('Unauthorized');
	return { noWebhookResponse: true };
}

/** 410 makes the service delete the subscription that sent the delivery (contract, Delivery rules 5). */
export function answerGone(context: IWebhookFunctions, subscriptionId: string): IWebhookResponseData {
	context.logger.info(
		`Booking Service Trigger answered 410 to a delivery from webhook subscription ${subscriptionId}, which it replaced: the service deletes it.`,
		logContext(context),
	);
	const response = context.getResponseObject();
	response.writeHead(410, { 'Content-Type': 'text/plain; charset=utf-8' });
	response.end('Gone');
	return { noWebhookResponse: true };
}

/** A 2xx answer without an execution: the service must not retry what was deliberately skipped. */
export function acknowledgeWithoutRun(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, skipped: reason } };
}

interface TriggerOptions {
	includeEnvelope?: boolean;
	nameLanguage?: NameLanguage;
	eventTypes?: unknown;
}

function triggerOptions(context: IWebhookFunctions): TriggerOptions {
	return context.getNodeParameter('options', {}) as TriggerOptions;
}

export function notWantedReason(context: IWebhookFunctions, envelope: DeliveryEnvelope): string | undefined {
	const selected = normaliseEventSelection(context.getNodeParameter('events', []));
	if (!isSelectedEvent(selected, envelope.type)) return `event type ${envelope.type} is not selected`;
	const wantedEventTypes = readEventTypesFilter(triggerOptions(context).eventTypes);
	const eventTypeId = (envelope.data.booking.eventType as { id?: unknown } | undefined)?.id;
	if (wantedEventTypes.length > 0 && !wantedEventTypes.includes(String(eventTypeId))) {
		return `event type ${String(eventTypeId)} is not in the Event Type filter`;
	}
	return undefined;
}

/** Checked against the service (apiCheck.ts): only the service's booking is emitted, none of the request's fields. */
export function runEvent(
	context: IWebhookFunctions,
	envelope: DeliveryEnvelope,
	checkedAgainstService = false,
): IWebhookResponseData {
	const notWanted = notWantedReason(context, envelope);
	if (notWanted !== undefined) return acknowledgeWithoutRun(notWanted);

	// Duplicates are dropped from memory only: n8n saves a webhook()'s static data whole, as read when the request
	// arrived, so a write here could put back a subscription record main replaced meanwhile (queue mode: another
	// process). Durable de-duplication is Remove Duplicates on eventId (README, "Duplicates").
	const scope = dedupeScope(context);
	const nowMs = Date.now();
	if (seenInThisProcess.checkAndRemember(scope, envelope.id, nowMs)) {
		return acknowledgeWithoutRun(`event ${envelope.id} was already received`);
	}
	// A signed event whose fact already ran from a request checked against the service (one that came before the
	// service's own delivery) starts nothing. Facts of signed events never stop a signed event: two genuine changes
	// may share a timestamp.
	const fact = factOf(envelope.type, envelope.data.booking);
	if (fact !== undefined) {
		if (!checkedAgainstService) {
			const judged = factsRun.judge(scope, fact, envelope.id, envelope.data.booking);
			if (judged.verdict === 'ran' && judged.checked) {
				return acknowledgeWithoutRun(`booking ${String(envelope.data.booking.id)}: this already ran as event ${judged.eventId}`);
			}
		}
		factsRun.record(scope, fact, envelope.id, envelope.data.booking, checkedAgainstService);
	}

	const options = triggerOptions(context);
	const booking = localizeBooking(envelope.data.booking as Booking, options.nameLanguage ?? 'service');
	const shown: DeliveryEnvelope = checkedAgainstService
		? { ...envelope, data: { booking }, body: {} }
		: { ...envelope, data: { ...envelope.data, booking } };
	const item = toTriggerItem(shown, !checkedAgainstService && (options.includeEnvelope ?? false));
	return { workflowData: [context.helpers.returnJsonArray(item)] };
}
