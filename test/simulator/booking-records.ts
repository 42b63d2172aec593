/**
 * Making booking records: the derived fields (end, location copy, join link, manage token) filled
 * in one way for seeded, generated and newly booked bookings alike.
 */
import type { Answer, Booker, BookingSource, BookingStatus, Payment } from './model.ts';
import { BOOKING_SITE } from './resources.ts';
import type { BookingRecord, EventTypeRecord, Store } from './store.ts';

/** Where the location kind gives a join link, a made-up one of the provider's shape. */
function joinUrlFor(store: Store, eventType: EventTypeRecord): string | null {
	const code = store.ids.hex(10);
	if (eventType.location.kind === 'google_meet')
		return `https://meet.google.com/${code.slice(0, 3)}-${code.slice(3, 7)}-${code.slice(7)}`;
	if (eventType.location.kind === 'teams')
		return `https://teams.microsoft.com/l/meetup-join/${code}`;
	return null;
}

export interface NewBooking {
	eventType: EventTypeRecord;
	status: BookingStatus;
	startMs: number;
	booker: Booker;
	source: BookingSource;
	createdAtMs: number;
	answers?: Answer[];
	bookerNotes?: string | null;
	payment?: Payment | null;
	cancellation?: BookingRecord['cancellation'];
	notify?: boolean;
}

/** Builds and stores a booking record with the derived fields (end, location, links) filled in. */
export function insertBooking(store: Store, booking: NewBooking): BookingRecord {
	const record: BookingRecord = {
		id: store.ids.id(),
		seq: store.nextBookingSeq(),
		status: booking.status,
		startMs: booking.startMs,
		endMs: booking.startMs + booking.eventType.durationMinutes * 60_000,
		hostTimezone: store.account.timezone,
		eventTypeId: booking.eventType.id,
		booker: booking.booker,
		answers: booking.answers ?? [],
		bookerNotes: booking.bookerNotes ?? null,
		location: structuredClone(booking.eventType.location),
		joinUrl: joinUrlFor(store, booking.eventType),
		source: booking.source,
		payment: booking.payment ?? null,
		cancellation: booking.cancellation ?? null,
		manageToken: store.ids.hex(32),
		createdAtMs: booking.createdAtMs,
		updatedAtMs: booking.cancellation?.atMs ?? booking.createdAtMs,
		notify: booking.notify ?? true,
	};
	store.addBooking(record);
	return record;
}

/** A made-up receipt link for a payment that went through. */
export function receiptUrl(store: Store): string {
	return `${BOOKING_SITE}/receipts/${store.ids.hex(16)}`;
}
