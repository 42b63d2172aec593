// Where a new trigger starts (the service's time) and what it must know to tell its first changes right: no flood of
// history, in-flight bookings (a confirmation is a creation) and upcoming ones (a move is a reschedule).
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseDateTime } from '../shared/time';
import type { Booking } from '../shared/booking';
import { listAllPages } from '../shared/paging';
import type { PollState } from './changes';
import { emptyState } from './changes';
import type { KnownBookings } from './known';
import { MAX_IN_FLIGHT, MAX_IN_OVERLAP, MAX_UPCOMING, OVERLAP_MS, remember, time, trimKnown } from './known';

const IN_FLIGHT_STATUSES = ['held', 'awaiting_payment'];
/** The service's and n8n's clocks may differ; a booking listed needlessly costs a few bytes. */
const CLOCK_MARGIN_MS = 24 * 60 * 60_000;

export async function listBookings(
	context: IPollFunctions,
	qs: IDataObject,
	limit?: number,
	deadline?: number,
): Promise<Booking[]> {
	return (await listAllPages.call(context, { path: '/bookings', qs, limit, scope: 'bookings:read', deadline })) as Booking[];
}

const newestChange = async (context: IPollFunctions, deadline: number | undefined) =>
	(await listBookings(context, { sort: '-updatedAt' }, 1, deadline))[0];

/**
 * Bookings held or awaiting payment at activation (the listing leaves them out): remembered, so that a payment is told
 * as a creation. One made later is told by its own creation time.
 */
async function listInFlight(context: IPollFunctions, deadline: number | undefined): Promise<Booking[]> {
	const inFlight: Booking[] = [];
	// One after the other: a failure leaves no request of this poll still running.
	for (const status of IN_FLIGHT_STATUSES) {
		inFlight.push(...(await listBookings(context, { status }, MAX_IN_FLIGHT, deadline)));
	}
	return inFlight;
}

/** Upcoming and in-flight bookings are read *before* the position is taken, so a change meanwhile is reported. */
export async function startingState(
	context: IPollFunctions,
	startFrom: unknown,
	deadline: number | undefined,
): Promise<PollState> {
	let startFromIso: string | undefined;
	if (startFrom !== undefined) {
		const instant = parseDateTime(startFrom, context.getTimezone());
		if (instant === undefined) {
			throw new NodeOperationError(
				context.getNode(),
				"Start From must be a date and time such as 2026-03-01T00:00:00 (the date picker's form, read in the workflow's time zone) or 2026-03-01T00:00:00Z",
			);
		}
		startFromIso = new Date(instant).toISOString();
	}

	const newestBefore = startFromIso === undefined ? await newestChange(context, deadline) : undefined;
	const serviceNowMs = Math.min(Date.now(), time(newestBefore?.updatedAt) || Date.now());
	const upcoming = await listBookings(
		context,
		{ sort: 'start', startFrom: new Date(serviceNowMs - CLOCK_MARGIN_MS).toISOString() },
		MAX_UPCOMING,
		deadline,
	);
	const inFlight = await listInFlight(context, deadline);

	let state: PollState;
	let recentlyChanged: Booking[] = [];
	let newestMs = Number.NaN;
	if (startFromIso !== undefined) {
		state = emptyState(startFromIso, startFromIso);
	} else {
		const askedAt = Date.now();
		const newest = await newestChange(context, deadline);
		if (newest === undefined) {
			// An account without bookings: everything that appears from now on is new.
			state = emptyState(null, new Date(0).toISOString());
		} else {
			// Never ahead of n8n's clock: a change stamped later is read again, not a start. New from two minutes before,
			// so a service clock a little behind or ahead around activation hides no first booking (what is listed below is
			// remembered, so none of it is reported).
			const positionMs = Math.min(time(newest.updatedAt), askedAt);
			const position = positionMs < time(newest.updatedAt) ? new Date(positionMs).toISOString() : newest.updatedAt;
			state = emptyState(position, new Date(positionMs - OVERLAP_MS).toISOString());
			newestMs = time(newest.updatedAt);
			const overlapStart = new Date(positionMs - OVERLAP_MS).toISOString();
			recentlyChanged = await listBookings(
				context,
				{ sort: '-updatedAt', updatedSince: overlapStart },
				MAX_IN_OVERLAP,
				deadline,
			);
		}
	}

	// The window before the position: only what was last changed at or before the newest change listed (a later
	// change is reported). A first sync knows only what was last changed before Start From: everything since is its
	// backlog.
	const sinceMs = time(state.since);
	const cursorMs = time(state.cursor);
	const known: KnownBookings = {};
	for (const booking of [...upcoming, ...inFlight]) {
		if (startFromIso === undefined || time(booking.updatedAt) < sinceMs) remember(known, booking);
	}
	for (const booking of recentlyChanged.reverse()) {
		if (time(booking.updatedAt) <= (Number.isNaN(newestMs) ? cursorMs : newestMs)) remember(known, booking);
	}
	return { ...state, known: trimKnown(known, cursorMs) };
}
