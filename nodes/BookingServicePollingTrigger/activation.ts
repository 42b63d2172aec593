/**
 * Where a new trigger starts, in the service's own time, and what it needs to know from the start so that the first
 * changes it sees are told right:
 * - the bookings changed within the overlap before the newest change: the first poll asks from there, and none of
 *   them is a change made after activation (no flood of history);
 * - bookings held or awaiting payment: their confirmation later is a booking created, as with webhooks;
 * - upcoming bookings: a later move of any of them is a reschedule, with the times it had.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseDateTime } from '../BookingService/helpers/time';
import type { Booking } from '../shared/booking';
import { listAllPages } from '../shared/paging';
import type { PollState } from './changes';
import { emptyState } from './changes';
import type { KnownBookings } from './known';
import { MAX_IN_FLIGHT, MAX_IN_OVERLAP, MAX_UPCOMING, OVERLAP_MS, remember, time, trimKnown } from './known';

const IN_FLIGHT_STATUSES = ['held', 'awaiting_payment'];
/**
 * Upcoming is judged by the service's clock where it can be seen (its newest change), else n8n's, less a day: the
 * two clocks may differ, and a booking listed needlessly costs a few bytes.
 */
const CLOCK_MARGIN_MS = 24 * 60 * 60_000;

export async function listBookings(context: IPollFunctions, qs: IDataObject, limit?: number): Promise<Booking[]> {
	return (await listAllPages.call(context, { path: '/bookings', qs, limit, scope: 'bookings:read' })) as Booking[];
}

/** The state of a trigger with no position yet: from now, or from Options → Start From (a first sync). */
export async function startingState(context: IPollFunctions, startFrom: unknown): Promise<PollState> {
	let state: PollState;
	let recentlyChanged: Booking[] = [];
	if (startFrom !== undefined) {
		const instant = parseDateTime(startFrom, context.getTimezone());
		if (instant === undefined) {
			throw new NodeOperationError(context.getNode(), 'Start From must be a date and time such as 2026-03-01 00:00');
		}
		const iso = new Date(instant).toISOString();
		state = emptyState(iso, iso);
	} else {
		const [newest] = await listBookings(context, { sort: '-updatedAt' }, 1);
		// An account without bookings: everything that appears from now on is new.
		if (newest === undefined) {
			state = emptyState(null, new Date(0).toISOString());
		} else {
			state = emptyState(newest.updatedAt, newest.updatedAt);
			const overlapStart = new Date(time(newest.updatedAt) - OVERLAP_MS).toISOString();
			recentlyChanged = await listBookings(context, { sort: '-updatedAt', updatedSince: overlapStart }, MAX_IN_OVERLAP);
		}
	}

	const serviceNowMs = Math.min(Date.now(), time(state.cursor) || Date.now());
	const upcoming = await listBookings(
		context,
		{ sort: 'start', startFrom: new Date(serviceNowMs - CLOCK_MARGIN_MS).toISOString() },
		MAX_UPCOMING,
	);
	const inFlight = (
		await Promise.all(IN_FLIGHT_STATUSES.map(async (status) => await listBookings(context, { status }, MAX_IN_FLIGHT)))
	).flat();

	// Known from the start: only what was last changed before the trigger's starting point. A booking changed while
	// these lists were read (or, for a first sync, since Start From) is a change the first poll must report.
	const startMs = startFrom === undefined ? time(state.cursor) : time(state.since) - 1;
	const known: KnownBookings = {};
	for (const booking of [...upcoming, ...inFlight, ...recentlyChanged.reverse()]) {
		if (time(booking.updatedAt) <= startMs) remember(known, booking);
	}
	return { ...state, known: trimKnown(known, time(state.cursor)) };
}
