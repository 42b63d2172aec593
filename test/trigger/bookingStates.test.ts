import { describe, expect, it } from 'vitest';
import { BOOKING_STATE_LIMITS, BookingStatesRun } from '../../nodes/BookingServiceTrigger/bookingStates.ts';

const made = '2026-03-01T09:00:00.000Z';
const moved = '2026-03-02T10:00:00.000Z';
const booking = (id: string, updatedAt = made) => ({ id, updatedAt });

describe('BookingStatesRun: what a trigger ran per booking', () => {
	it('refuses a state run before under another event id, and lets the same event through as a repeat', () => {
		const states = new BookingStatesRun();
		expect(states.judge('t', 'booking.created', 'evt_1', booking('b1'))).toEqual({ verdict: 'new' });
		states.record('t', 'booking.created', 'evt_1', booking('b1'), false);
		expect(states.judge('t', 'booking.created', 'evt_1', booking('b1'))).toEqual({ verdict: 'repeat' });
		expect(states.judge('t', 'booking.created', 'evt_2', booking('b1')).verdict).toBe('contradicted');
		// Another trigger ran nothing for it.
		expect(states.judge('other', 'booking.created', 'evt_2', booking('b1'))).toEqual({ verdict: 'new' });
	});

	it('a creation once per booking; a later state of another kind runs', () => {
		const states = new BookingStatesRun();
		states.record('t', 'booking.created', 'evt_1', booking('b1'), true);
		expect(states.judge('t', 'booking.created', 'evt_2', booking('b1', moved)).verdict).toBe('contradicted');
		expect(states.judge('t', 'booking.rescheduled', 'evt_3', booking('b1', moved))).toEqual({ verdict: 'new' });
	});

	it('one state, one kind when a signed event reported it; an unproven one does not block the service’s own event', () => {
		const states = new BookingStatesRun();
		states.record('t', 'booking.created', 'evt_1', booking('b1'), true);
		expect(states.judge('t', 'booking.rescheduled', 'evt_2', booking('b1')).verdict).toBe('contradicted');
		states.record('t', 'booking.created', 'evt_3', booking('b2', moved), false);
		expect(states.judge('t', 'booking.rescheduled', 'evt_4', booking('b2', moved))).toEqual({ verdict: 'new' });
		states.record('t', 'booking.rescheduled', 'evt_4', booking('b2', moved), true);
		// Both kinds are kept for the state: a replay of either is refused.
		expect(states.judge('t', 'booking.created', 'evt_5', booking('b2', moved)).verdict).toBe('contradicted');
		expect(states.judge('t', 'booking.rescheduled', 'evt_6', booking('b2', moved)).verdict).toBe('contradicted');
	});

	it(`is bounded: the last ${BOOKING_STATE_LIMITS.maxBookings} bookings per trigger, for the last ${BOOKING_STATE_LIMITS.maxScopes} triggers`, () => {
		const states = new BookingStatesRun();
		const { maxBookings, maxScopes } = BOOKING_STATE_LIMITS;
		states.record('t0', 'booking.created', 'evt_first', booking('first'), false);
		for (let index = 0; index < maxBookings - 1; index++) {
			states.record('t0', 'booking.created', `evt_${index}`, booking(`b${index}`), false);
		}
		// Still remembered with maxBookings bookings held; one more pushes the oldest out, and its replay would run.
		expect(states.judge('t0', 'booking.created', 'evt_replay', booking('first')).verdict).toBe('contradicted');
		states.record('t0', 'booking.created', 'evt_last', booking('last'), false);
		expect(states.judge('t0', 'booking.created', 'evt_replay', booking('first'))).toEqual({ verdict: 'new' });
		expect(states.size).toEqual({ scopes: 1, bookings: maxBookings });

		for (let scope = 1; scope <= maxScopes; scope++) states.record(`t${scope}`, 'booking.created', 'evt', booking('b'), false);
		expect(states.size.scopes).toBe(maxScopes);
		expect(states.judge('t0', 'booking.created', 'evt_replay', booking('last'))).toEqual({ verdict: 'new' });
		expect(states.judge(`t${maxScopes}`, 'booking.created', 'evt_replay', booking('b')).verdict).toBe('contradicted');
	});

	it('keeps at most 64 characters of a state stamp', () => {
		const states = new BookingStatesRun();
		const long = 'x'.repeat(10_000);
		states.record('t', 'booking.created', 'evt_1', booking('b1', long), false);
		expect(states.judge('t', 'booking.created', 'evt_2', booking('b1', long)).verdict).toBe('contradicted');
	});
});
