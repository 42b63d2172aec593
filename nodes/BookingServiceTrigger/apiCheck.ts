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
 * This proves the booking state, not the event id: a request that repeats a booking's current record exactly (from a
 * captured delivery) under a new id would pass. Hence each booking state runs once per process whatever the id, and
 * the check is used only where a signature cannot be checked at all.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../shared/transport';
import { isResourceId } from '../shared/resourceId';
import {
	acknowledgeWithoutRun,
	bookingStateKey,
	dedupeScope,
	notWantedReason,
	refuseDelivery,
	runEvent,
	seenInThisProcess,
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
 * Why the service's booking contradicts the event, or undefined when it confirms it: the request must carry the
 * booking exactly as the service holds it, in the status the event leaves it in. A booking changed again since the
 * event cannot confirm it either, and is refused (its later change is an event of its own).
 */
export function contradiction(eventType: string, posted: IDataObject, fetched: unknown): string | undefined {
	if (typeof fetched !== 'object' || fetched === null) return 'the service returned no booking';
	if (!sameJson(posted, fetched)) {
		return "the booking in the request is not the service's booking as it is now (forged, or changed since the event)";
	}
	const status = (fetched as IDataObject).status;
	const expected = STATUS_AFTER_EVENT[eventType];
	if (expected !== undefined && status !== expected) {
		return `a ${eventType} event cannot leave a booking in status ${String(status)}`;
	}
	if (eventType === 'booking.rescheduled' && (fetched as IDataObject).updatedAt === (fetched as IDataObject).createdAt) {
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
	if (!unverifiedWork.take(nowMs)) {
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
	if (seenInThisProcess.checkAndRemember(dedupeScope(context), bookingStateKey(envelope.data.booking), nowMs)) {
		return acknowledgeWithoutRun(`booking ${bookingId} in this state was already received`);
	}
	context.logger.info(
		`Booking Service Trigger could not check the signature of event ${envelope.id} (the API key changed) and confirmed it by reading booking ${bookingId} from the service.`,
		{ workflowId: context.getWorkflow().id, nodeName: context.getNode().name },
	);
	return runEvent(context, { ...envelope, data: { booking: fetched as IDataObject } }, true);
}
