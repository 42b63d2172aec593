/**
 * Booking states and transitions (contract, "States and transitions"), shared by the API routes and
 * the control interface so a booking moves, emails and emits the same way whoever moves it.
 */
import { ApiError } from './errors.ts';
import type { Booker, BookingSource, CancelledBy } from './model.ts';
import {
	CANCELLABLE_STATUSES,
	DUPLICATE_BOOKING_STATUSES,
	NO_SHOW_STATUSES,
	RESCHEDULABLE_STATUSES,
	initialStatus,
} from './policy.ts';
import { isoTime } from './clock.ts';
import { insertBooking, receiptUrl } from './booking-records.ts';
import type { Simulation } from './simulation.ts';
import { isFreeStart } from './slots.ts';
import type { BookingRecord, EmailKind, EventTypeRecord } from './store.ts';

export interface BookingRequest {
	eventType: EventTypeRecord;
	startMs: number;
	booker: Booker;
	notes: string | null;
	notify: boolean;
	source: BookingSource;
}

/**
 * A new booking, if the time is free. Checks in order: the event type is active
 * (event_type_inactive), the booker has no live booking at that very time already
 * (duplicate_booking), the start is an offered slot (slot_unavailable). Nothing is stored when a
 * check fails.
 */
export function createBooking(sim: Simulation, request: BookingRequest): BookingRecord {
	const { store } = sim;
	const nowMs = sim.clock.now();
	const { eventType } = request;
	if (!eventType.active)
		throw new ApiError('event_type_inactive', `Event type ${eventType.id} is not active.`);
	const email = request.booker.email.toLowerCase();
	const duplicate = [...store.bookings.values()].some(
		(booking) =>
			booking.eventTypeId === eventType.id &&
			booking.startMs === request.startMs &&
			booking.booker.email.toLowerCase() === email &&
			DUPLICATE_BOOKING_STATUSES.includes(booking.status),
	);
	if (duplicate)
		throw new ApiError(
			'duplicate_booking',
			'This booker already has a booking of this event type at this time.',
		);
	if (!isFreeStart(store, eventType, request.startMs, nowMs)) {
		throw new ApiError('slot_unavailable', 'The requested time is not free.');
	}
	const status = initialStatus(eventType);
	const booking = insertBooking(store, {
		eventType,
		status,
		startMs: request.startMs,
		booker: request.booker,
		source: request.source,
		createdAtMs: nowMs,
		bookerNotes: request.notes,
		// No card payment is taken, even for a paid type (contract, POST /bookings).
		payment:
			eventType.price === null
				? null
				: { ...eventType.price, status: 'unpaid', refundedAmount: 0, receiptUrl: null },
		notify: request.notify,
	});
	if (request.notify) {
		sendEmail(sim, booking, booking.booker.email, 'booking_confirmation', 'Your booking');
		if (status === 'confirmed') sim.deliveries.emit('booking.created', booking);
	}
	return booking;
}

/**
 * Cancels a live booking: the customer is emailed, a paid booking is refunded in full,
 * booking.cancelled is emitted. An already cancelled booking is returned unchanged and nothing is
 * sent.
 */
export function cancelBooking(
	sim: Simulation,
	booking: BookingRecord,
	by: CancelledBy,
	reason: string | null,
): BookingRecord {
	if (booking.status === 'cancelled') return booking;
	if (!CANCELLABLE_STATUSES.includes(booking.status)) {
		throw new ApiError('booking_state_changed', `A ${booking.status} booking cannot be cancelled.`);
	}
	const nowMs = sim.clock.now();
	booking.status = 'cancelled';
	booking.cancellation = { by, reason, atMs: nowMs };
	booking.updatedAtMs = nowMs;
	// not shown in the contract: whether `notify: false` at creation also silences this email. It
	// does not: cancelling always tells the customer.
	sendEmail(sim, booking, booking.booker.email, 'booking_cancelled', 'Your booking was cancelled');
	const payment = booking.payment;
	if (payment !== null && (payment.status === 'paid' || payment.status === 'partially_refunded')) {
		payment.status = 'refunded';
		payment.refundedAmount = payment.amount;
		sendEmail(sim, booking, booking.booker.email, 'refund_issued', 'Your payment was refunded');
	}
	sim.deliveries.emit('booking.cancelled', booking);
	return booking;
}

/** The outcome of the online payment of a booking awaiting it. */
export function settlePayment(
	sim: Simulation,
	booking: BookingRecord,
	outcome: 'succeeded' | 'not_completed',
): BookingRecord {
	if (booking.status !== 'awaiting_payment' || booking.payment === null) {
		throw new ApiError(
			'booking_state_changed',
			`A ${booking.status} booking is not awaiting payment.`,
		);
	}
	const nowMs = sim.clock.now();
	if (outcome === 'not_completed') {
		booking.payment.status = 'failed';
		booking.status = 'cancelled';
		booking.cancellation = { by: 'system', reason: null, atMs: nowMs };
		booking.updatedAtMs = nowMs;
		sendEmail(
			sim,
			booking,
			booking.booker.email,
			'booking_cancelled',
			'Your booking was cancelled',
		);
		sim.deliveries.emit('booking.cancelled', booking);
		return booking;
	}
	booking.payment.status = 'paid';
	booking.payment.receiptUrl = receiptUrl(sim.store);
	booking.status = 'confirmed';
	booking.updatedAtMs = nowMs;
	// For a paid type, booking.created is emitted when the payment succeeds (contract, Events).
	if (booking.notify) sim.deliveries.emit('booking.created', booking);
	return booking;
}

/**
 * Moves a booking to a new start: same id, exactly one booking.rescheduled carrying the previous
 * time, and an email to the other party.
 */
export function rescheduleBooking(
	sim: Simulation,
	booking: BookingRecord,
	startMs: number,
	by: 'booker' | 'host',
): BookingRecord {
	if (!RESCHEDULABLE_STATUSES.includes(booking.status)) {
		throw new ApiError(
			'booking_state_changed',
			`A ${booking.status} booking cannot be rescheduled.`,
		);
	}
	const eventType = sim.store.eventType(booking.eventTypeId);
	if (
		eventType === undefined ||
		!isFreeStart(sim.store, eventType, startMs, sim.clock.now(), booking.id)
	) {
		throw new ApiError('slot_unavailable', 'The requested time is not free.');
	}
	const previous = { startMs: booking.startMs, endMs: booking.endMs };
	booking.startMs = startMs;
	booking.endMs = startMs + (previous.endMs - previous.startMs);
	booking.updatedAtMs = sim.clock.now();
	// not shown in the contract: who is emailed about a reschedule. The party that did not move it.
	const to = by === 'booker' ? sim.store.account.email : booking.booker.email;
	sendEmail(sim, booking, to, 'booking_rescheduled', 'A booking was rescheduled');
	sim.deliveries.emit('booking.rescheduled', booking, previous);
	return booking;
}

export function markNoShow(sim: Simulation, booking: BookingRecord): BookingRecord {
	if (!NO_SHOW_STATUSES.includes(booking.status)) {
		throw new ApiError(
			'booking_state_changed',
			`A ${booking.status} booking cannot be marked as a no-show.`,
		);
	}
	booking.status = 'no_show';
	booking.updatedAtMs = sim.clock.now();
	sim.deliveries.emit('booking.no_show', booking);
	return booking;
}

// not shown in the contract: how a booking becomes completed (the contract shows no event for it). The simulator
// lets the control interface complete a confirmed booking, and lets the host edit its notes (a change with no event),
// so a polling client can be shown every kind of change.
export function completeBooking(sim: Simulation, booking: BookingRecord): BookingRecord {
	if (booking.status !== 'confirmed') {
		throw new ApiError('booking_state_changed', `A ${booking.status} booking cannot be completed.`);
	}
	booking.status = 'completed';
	booking.updatedAtMs = sim.clock.now();
	return booking;
}

export function editBookingNotes(sim: Simulation, booking: BookingRecord, notes: string | null): BookingRecord {
	booking.bookerNotes = notes;
	booking.updatedAtMs = sim.clock.now();
	return booking;
}

function sendEmail(
	sim: Simulation,
	booking: BookingRecord,
	to: string,
	kind: EmailKind,
	subject: string,
): void {
	sim.store.recordEmail({ to, kind, subject, bookingId: booking.id, at: isoTime(sim.clock.now()) });
}
