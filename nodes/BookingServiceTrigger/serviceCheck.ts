// A delivery whose signature cannot be checked because the API key changed (the sealed secret opens only with its key)
// runs only if its booking, read with the current key, shows it happened, and with that booking, none of the request's
// fields. That proves a fact, not an event, so each fact runs at most once per trigger (memory.ts).
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { isResourceId } from '../shared/resourceId';
import { keepListed, listedBooking, RETRY_HORIZON_MS, workBudget } from './budget';
import type { DeliveryEnvelope } from './delivery';
import { factOf, scopeOf } from './memory';
import type { StoredSubscription } from './records';
import { requestOnce } from './service';
import { isFresh } from './signingSecret';
import type { SignatureHeader } from './signingSecret';

/** The contract does not say a booking's updatedAt and createdAt are stamped alike. */
const SAME_INSTANT_MS = 1_000;
/** n8n's clock and the service's may differ by seconds (RT7-6): a listing confirms what happened 5 s before it began. */
const LISTED_AFTER_MS = 5_000;

/** In-flight states (contract, States and transitions): no event has happened to a booking in them yet. */
const IN_FLIGHT = new Set(['held', 'awaiting_payment']);

const timeOf = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : Number.NaN);

/** The service never delivers an event from before the subscription existed (its stamp: seed 5402), nor retries longer. */
export function oldestDeliverable({ createdAt }: StoredSubscription, nowMs: number): number {
	return Math.max(createdAt === undefined ? 0 : Date.parse(createdAt), nowMs - RETRY_HORIZON_MS);
}

/** Why the booking does not show that an event of this kind happened at or after `sinceMs`, or undefined. */
export function unproven(eventType: string, fetched: unknown, sinceMs: number): string | undefined {
	if (typeof fetched !== 'object' || fetched === null) return 'the service returned no booking';
	const booking = fetched as IDataObject;
	const status = String(booking.status);
	const made = timeOf(booking.createdAt);
	const changed = timeOf(booking.updatedAt);
	if (Number.isNaN(made) || Number.isNaN(changed)) return 'the booking carries no readable createdAt and updatedAt';
	const tooOld = 'before the subscription existed, or longer ago than the service retries a delivery';
	if (changed < sinceMs) return `the booking last changed ${tooOld}`;
	switch (eventType) {
		case 'booking.cancelled': {
			if (status !== 'cancelled') return `the booking is ${status}, not cancelled`;
			const cancelledAt = timeOf((booking.cancellation as IDataObject | null | undefined)?.at);
			return cancelledAt < sinceMs ? `the booking was cancelled ${tooOld}` : undefined;
		}
		case 'booking.no_show':
			return status === 'no_show' ? undefined : `the booking is ${status}, not a no-show`;
	}
	if (IN_FLIGHT.has(status)) return `the booking is still ${status}`;
	if (eventType === 'booking.rescheduled')
		return changed - made >= SAME_INSTANT_MS ? undefined : 'a booking unchanged since it was made was not rescheduled';
	// booking.created: confirmed at some point, made (or, when paid, paid) since then.
	if ((booking.cancellation as IDataObject | null | undefined)?.by === 'system')
		return 'the system cancelled the booking, which it does for a payment never completed: it was never confirmed';
	const createdBy = booking.payment === null || booking.payment === undefined ? made : changed;
	return createdBy < sinceMs ? `the booking was made ${tooOld}` : undefined;
}

/** Why a request that cannot be verified is not even worth a look-up, or undefined. */
export function uncheckable(envelope: DeliveryEnvelope, header: SignatureHeader, nowMs: number): string | undefined {
	if (!isFresh(header, Math.floor(nowMs / 1000))) return 'its timestamp is not within five minutes';
	if (!isResourceId(envelope.data.booking.id)) return 'it names no booking';
	// Every delivery carries createdAt (contract, Delivery body): the item shows it.
	if (Number.isNaN(timeOf(envelope.createdAt))) return 'it carries no createdAt';
	if (factOf(envelope.type, {}) === undefined)
		return `an event of kind ${envelope.type} cannot be confirmed from its booking`;
	return undefined;
}

/**
 * The booking as the service has it now, if it shows the event happened: looked up while the budget allows, else as
 * listed after it (budget.ts). Each read sits between two checks that the credential still holds the proven key (RT5-C2).
 */
export async function confirmWithService(
	context: IWebhookFunctions,
	envelope: DeliveryEnvelope,
	stored: StoredSubscription,
	nowMs: number,
	keyHolds: () => Promise<boolean>,
): Promise<{ booking: IDataObject } | { problem: string }> {
	const bookingId = String(envelope.data.booking.id);
	const switched = new Error("the credential changed since its key was found to be of the subscription's account");
	const withKey = async <T>(read: () => Promise<T>) => {
		if (!(await keyHolds())) throw switched;
		const answer = await read();
		if (!(await keyHolds())) throw switched;
		return answer;
	};
	const account = JSON.stringify([stored.baseUrl, stored.accountId]);
	let booking: unknown;
	if (workBudget.take(scopeOf(context), nowMs, account)) {
		try {
			booking = await withKey(async () => await requestOnce(context, { method: 'GET', path: `/bookings/${bookingId}` }));
			keepListed(account, bookingId, booking, nowMs);
		} catch (error) {
			return { problem: `reading booking ${bookingId} failed: ${(error as Error).message}` };
		}
	} else {
		const afterMs = timeOf(envelope.createdAt) + LISTED_AFTER_MS;
		booking = await listedBooking(context, { account, bookingId, nowMs, afterMs }, withKey);
		if (booking === undefined)
			return { problem: `too many unverified requests, and booking ${bookingId} is not in a listing read since the event` };
	}
	const problem = unproven(envelope.type, booking, oldestDeliverable(stored, nowMs));
	return problem === undefined ? { booking: booking as IDataObject } : { problem };
}
