// "Fetch Test Event": the latest matching change, without touching the production position; reschedules and updates
// come from recentEvents.ts (a manual run lacks the booking's earlier state).
import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Booking } from '../shared/booking';
import { listBookings } from './activation';
import type { BookingEvent } from './changes';
import { eventFor } from './changes';
import { time } from './known';
import { recentEventsOf } from './recentEvents';

/** How many of the most recently changed bookings a manual run looks through. */
export const SAMPLE_BOOKINGS = 100;

export async function sampleEvent(
	context: IPollFunctions,
	trigger: string,
	isWanted: (event: BookingEvent<Booking>) => boolean,
): Promise<BookingEvent<Booking>> {
	const recent = await listBookings(context, { sort: '-updatedAt' }, SAMPLE_BOOKINGS);
	// Judged by what each booking shows: created if it never changed after it was made, else updated.
	const told = recent.map((booking) => eventFor(booking, undefined, time(booking.updatedAt), Number.NaN));
	const reported = recentEventsOf(trigger) as Array<BookingEvent<Booking>>;
	const newestFirst = [...reported, ...told].sort(
		(a, b) => time(b.eventCreatedAt) - time(a.eventCreatedAt),
	);
	const sample = newestFirst.find(isWanted);
	if (sample !== undefined) return sample;
	throw new NodeOperationError(
		context.getNode(),
		`None of the ${SAMPLE_BOOKINGS} most recently changed bookings matches this trigger's events`,
		{
			description:
				'Make or change a booking (in the app, or with the Booking Service node), then fetch a test event again. A reschedule or an update is recognised only by an active trigger, which knows the earlier state: activate the workflow, reschedule a booking, wait for a poll, and fetch again. A manual run never moves the position the active trigger polls from.',
		},
	);
}
