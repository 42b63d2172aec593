/**
 * Authenticating a delivery whose signature this process cannot check, against the service itself.
 *
 * After the credential's API key is rotated, the stored signing secret (sealed under the old key) no longer opens, and
 * a process that had not unsealed it before (a restart, a queue-mode webhook process started since) cannot verify
 * the signature of deliveries from the subscription made with the old key — until activation replaces it, and for
 * the old subscription's retries after that. Refusing them would lose every event of that time. Instead, the booking
 * the delivery reports is read with the current key, and the event runs only if the service holds exactly that
 * booking, in the state the event reports. What runs is the service's booking: no other field of the request.
 *
 * This proves the booking state, not the event: a request that repeats a booking's current record exactly (from a
 * captured delivery, a read-only key) under a new id or another event kind would pass. Hence the record must fit the
 * event kind (contradiction()), and what the trigger ran for the booking before decides the rest (bookingStates.ts):
 * a state runs once per kind, a creation once per booking. The check is used only where a signature cannot be
 * checked at all.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../shared/transport';
import { isResourceId } from '../shared/resourceId';
import {
	acknowledgeWithoutRun,
	dedupeScope,
	notWantedReason,
	refuseDelivery,
	runEvent,
	seenInThisProcess,
	statesRun,
} from './answers';
import { parseDeliveryEnvelope } from './delivery';
import { hasFreshTimestamp } from './signature';
import { unverifiedWork } from './unverifiedBudget';

/** Well inside the service's 10-second delivery timeout. */
const LOOKUP_TIMEOUT_MS = 5_000;

/** The status a booking is in right after each event (contract, Events). */
const STATUS_AFTER_EVENT: Record<string, string> = {
	'booking.created': 'confirmed',
	'booking.rescheduled': 'confirmed',
	'booking.cancelled': 'cancelled',
	'booking.no_show': 'no_show',
};

/** JSON values equal whatever the order of object keys. */
function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const aKeys = Object.keys(a);
	const bKeys = Object.keys(b);
	if (aKeys.length !== bKeys.length) return false;
	return aKeys.every(
		(key) =>
			Object.prototype.hasOwnProperty.call(b, key) &&
			sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
	);
}

/**
 * A booking's `updatedAt` may trail its `createdAt` by this much and still count as unchanged since it was made: the
 * contract does not say the two are written at the same instant.
 */
const SAME_INSTANT_MS = 1_000;

/** How long after it was made the booking last changed, or undefined when the times are not readable. */
function changedAfterMadeMs(booking: IDataObject): number | undefined {
	const made = Date.parse(String(booking.createdAt));
	const changed = Date.parse(String(booking.updatedAt));
	return Number.isNaN(made) || Number.isNaN(changed) ? undefined : changed - made;
}

/**
 * Why the service's booking contradicts the event, or undefined when it confirms it: the request must carry the
 * booking exactly as the service holds it, in the state the event leaves it in. A booking changed again since the
 * event cannot confirm it either, and is refused (its later change is an event of its own).
 *
 * The state must fit the kind (contract, Events and States): `booking.created` is the first confirmation, at creation
 * or, for a paid event type, when the payment succeeds — so a booking changed after it was made and not paid online
 * was rescheduled (or edited) since, and its record is not a creation. `booking.rescheduled` moves a booking, so one
 * unchanged since it was made was not rescheduled. A kind this check does not know cannot be confirmed beyond its
 * booking (the caller acknowledges it without a run).
 */
export function contradiction(eventType: string, posted: IDataObject, fetched: unknown): string | undefined {
	if (typeof fetched !== 'object' || fetched === null) return 'the service returned no booking';
	if (!sameJson(posted, fetched)) {
		return "the booking in the request is not the service's booking as it is now (forged, or changed since the event)";
	}
	const booking = fetched as IDataObject;
	const expected = STATUS_AFTER_EVENT[eventType];
	if (expected === undefined) return undefined; // a kind added later: the caller acknowledges it without a run
	if (booking.status !== expected) return `a ${eventType} event cannot leave a booking in status ${String(booking.status)}`;
	const changedMs = changedAfterMadeMs(booking);
	if (changedMs === undefined) return 'the booking carries no readable createdAt and updatedAt';
	const paidOnline = (booking.payment as IDataObject | null | undefined)?.status === 'paid';
	if (eventType === 'booking.created' && changedMs > SAME_INSTANT_MS && !paidOnline) {
		return 'the booking changed after it was made without an online payment, so this record is not its creation (rescheduled or edited since)';
	}
	if (eventType === 'booking.rescheduled' && changedMs <= 0) {
		return 'a booking unchanged since it was made was not rescheduled';
	}
	return undefined;
}

/**
 * The delivery checked against the service. `madeBeforeMs`: when only a replaced subscription could have sent it,
 * events made from then on reach its replacement too and are acknowledged here without a run.
 */
export async function authenticateByApi(
	context: IWebhookFunctions,
	rawBody: Buffer | string,
	header: string | string[] | undefined,
	madeBeforeMs: number,
): Promise<IWebhookResponseData> {
	const nowMs = Date.now();
	const envelope = parseDeliveryEnvelope(rawBody);
	if ('problem' in envelope) return refuseDelivery(context, `its signature cannot be checked and ${envelope.problem}`);
	if (!hasFreshTimestamp(header, Math.floor(nowMs / 1000))) {
		return refuseDelivery(context, 'its signature cannot be checked and its timestamp is not within five minutes');
	}
	const bookingId = envelope.data.booking.id;
	if (!isResourceId(bookingId)) return refuseDelivery(context, 'its signature cannot be checked and it names no booking');
	const eventMs = typeof envelope.createdAt === 'string' ? Date.parse(envelope.createdAt) : Number.NaN;
	if (eventMs >= madeBeforeMs) {
		return acknowledgeWithoutRun('made after its subscription was replaced: the new subscription delivers it');
	}
	const notWanted = notWantedReason(context, envelope);
	if (notWanted !== undefined) return acknowledgeWithoutRun(notWanted);
	if (seenInThisProcess.wasSeen(dedupeScope(context), envelope.id, nowMs)) {
		return acknowledgeWithoutRun(`event ${envelope.id} was already received`);
	}
	if (!unverifiedWork.take(dedupeScope(context), nowMs)) {
		return refuseDelivery(context, 'its signature cannot be checked, and too many unverified requests arrived to check it now');
	}

	let fetched: unknown;
	try {
		fetched = await bookingServiceApiRequest.call(context, {
			method: 'GET',
			path: `/bookings/${bookingId}`,
			timeoutMs: LOOKUP_TIMEOUT_MS,
			maxAttempts: 1,
		});
	} catch (error) {
		return refuseDelivery(context, `its signature cannot be checked, and reading booking ${bookingId} failed: ${(error as Error).message}`);
	}
	const problem = contradiction(envelope.type, envelope.data.booking, fetched);
	if (problem !== undefined) return refuseDelivery(context, `its signature cannot be checked, and ${problem}`);
	if (STATUS_AFTER_EVENT[envelope.type] === undefined) {
		return acknowledgeWithoutRun(`an event of kind ${envelope.type} cannot be confirmed from its booking, so it does not run`);
	}
	// Judged and recorded (by runEvent) in one synchronous step, so of two requests for one state only one runs. A
	// refused request records nothing: it cannot take the place of the service's own event.
	const judged = statesRun.judge(dedupeScope(context), envelope.type, envelope.id, fetched as IDataObject);
	if (judged.verdict === 'repeat') return acknowledgeWithoutRun(`event ${envelope.id} was already received`);
	if (judged.verdict === 'contradicted') {
		return refuseDelivery(context, `its signature cannot be checked, and ${judged.reason}`);
	}
	context.logger.info(
		`Booking Service Trigger could not check the signature of event ${envelope.id} (the API key changed) and confirmed it by reading booking ${bookingId} from the service.`,
		{ workflowId: context.getWorkflow().id, nodeName: context.getNode().name },
	);
	return runEvent(context, { ...envelope, data: { booking: fetched as IDataObject } }, true);
}
