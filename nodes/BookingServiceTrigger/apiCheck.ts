// A delivery whose signature this process cannot check (the key was rotated and the sealed secret no longer opens)
// is confirmed by reading its booking with the current key; the event runs only if the booking shows it happened.
// That proves a fact, not the event, so each fact runs at most once per trigger (bookingStates.ts).
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { bookingServiceApiRequest } from '../shared/transport';
import { isResourceId } from '../shared/resourceId';
import {
	acknowledgeWithoutRun,
	dedupeScope,
	factsRun,
	notWantedReason,
	refuseDelivery,
	runEvent,
	seenInThisProcess,
} from './answers';
import { factOf } from './bookingStates';
import { parseDeliveryEnvelope } from './delivery';
import { DRAIN_MS } from './retirement';
import { hasFreshTimestamp } from './signature';
import { unverifiedWork } from './unverifiedBudget';

/** Well inside the service's 10-second delivery timeout. */
const LOOKUP_TIMEOUT_MS = 5_000;

// The service's retries (disabled after failures spanning three days, contract Delivery rules 5) plus a day: an old
// booking's facts cannot be announced on demand.
export const RETRY_HORIZON_MS = DRAIN_MS + 24 * 60 * 60 * 1000;

/** The contract does not say updatedAt and createdAt are written at the same instant. */
const SAME_INSTANT_MS = 1_000;

/** In-flight states (contract, States and transitions): no event has happened to a booking in them yet. */
const IN_FLIGHT = new Set(['held', 'awaiting_payment']);

function timeOf(value: unknown): number {
	return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** Why the booking does not show that an event of this kind happened (changed within RETRY_HORIZON_MS), or undefined. */
export function unproven(eventType: string, fetched: unknown, nowMs: number): string | undefined {
	if (typeof fetched !== 'object' || fetched === null) return 'the service returned no booking';
	const booking = fetched as IDataObject;
	const status = String(booking.status);
	const made = timeOf(booking.createdAt);
	const changed = timeOf(booking.updatedAt);
	if (Number.isNaN(made) || Number.isNaN(changed)) return 'the booking carries no readable createdAt and updatedAt';
	if (nowMs - changed > RETRY_HORIZON_MS) return 'the booking last changed longer ago than the service retries a delivery';
	switch (eventType) {
		case 'booking.cancelled':
			return status === 'cancelled' ? undefined : `the booking is ${status}, not cancelled`;
		case 'booking.no_show':
			return status === 'no_show' ? undefined : `the booking is ${status}, not a no-show`;
	}
	if (IN_FLIGHT.has(status)) return `the booking is still ${status}`;
	if (eventType === 'booking.rescheduled') {
		return changed - made >= SAME_INSTANT_MS ? undefined : 'a booking unchanged since it was made was not rescheduled';
	}
	// booking.created
	if ((booking.cancellation as IDataObject | null | undefined)?.by === 'system') {
		return 'the system cancelled the booking, which it does for a payment never completed: it was never confirmed';
	}
	const createdBy = booking.payment === null || booking.payment === undefined ? made : changed;
	if (nowMs - createdBy > RETRY_HORIZON_MS) {
		return 'the booking was made longer ago than the service retries a delivery';
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
	// Every delivery carries createdAt (contract, Delivery body); without it the request cannot be placed before the
	// replacement, and the new subscription may deliver the same change.
	if (Number.isNaN(eventMs)) return refuseDelivery(context, 'its signature cannot be checked and it carries no createdAt');
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
	const fact = factOf(envelope.type, fetched as IDataObject);
	if (fact === undefined) {
		return acknowledgeWithoutRun(`an event of kind ${envelope.type} cannot be confirmed from its booking, so it does not run`);
	}
	const problem = unproven(envelope.type, fetched, nowMs);
	if (problem !== undefined) return refuseDelivery(context, `its signature cannot be checked, and ${problem}`);
	// Judged and recorded (by runEvent) in one synchronous step, so of two requests for one fact only one runs. A
	// refused request records nothing: it cannot take the place of the service's own event.
	const judged = factsRun.judge(dedupeScope(context), fact, envelope.id, fetched as IDataObject);
	if (judged.verdict === 'repeat') return acknowledgeWithoutRun(`event ${envelope.id} was already received`);
	if (judged.verdict === 'ran') {
		return refuseDelivery(
			context,
			`its signature cannot be checked, and what it reports of booking ${bookingId} already ran as event ${judged.eventId} (a replay, or a later event of a fact that ran with the booking's newest state)`,
		);
	}
	context.logger.info(
		`Booking Service Trigger could not check the signature of event ${envelope.id} (the API key changed) and confirmed it by reading booking ${bookingId} from the service.`,
		{ workflowId: context.getWorkflow().id, nodeName: context.getNode().name },
	);
	return runEvent(context, { ...envelope, data: { booking: fetched as IDataObject } }, true);
}
