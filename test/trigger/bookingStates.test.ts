import { describe, expect, it } from 'vitest';
import { BookingFactsRun, MAX_FACTS, factOf } from '../../nodes/BookingServiceTrigger/bookingStates.ts';

const made = '2026-03-01T09:00:00.000Z';
const moved = '2026-03-02T10:00:00.000Z';

describe('BookingFactsRun: the booking facts a trigger ran', () => {
	it('a fact runs once: the same event again is a repeat, another event id finds it ran; another trigger ran nothing', () => {
		const facts = new BookingFactsRun();
		const fact = factOf('booking.cancelled', { updatedAt: made })!;
		expect(facts.judge('t', fact, 'evt_1', { id: 'b1' })).toEqual({ verdict: 'new' });
		facts.record('t', fact, 'evt_1', { id: 'b1' });
		expect(facts.judge('t', fact, 'evt_1', { id: 'b1' })).toEqual({ verdict: 'repeat' });
		expect(facts.judge('t', fact, 'evt_2', { id: 'b1' })).toEqual({ verdict: 'ran', eventId: 'evt_1', checked: false });
		expect(facts.judge('other', fact, 'evt_2', { id: 'b1' })).toEqual({ verdict: 'new' });
		expect(facts.judge('t', fact, 'evt_2', { id: 'b2' })).toEqual({ verdict: 'new' });
		// A fact that ran from a request checked against the service says so (a signed event then starts nothing).
		facts.record('t', fact, 'evt_3', { id: 'b3' }, true);
		expect(facts.judge('t', fact, 'evt_3', { id: 'b3' })).toEqual({ verdict: 'repeat' });
		expect(facts.judge('t', fact, 'evt_4', { id: 'b3' })).toEqual({ verdict: 'ran', eventId: 'evt_3', checked: true });
	});

	it('a creation, cancellation and no-show once per booking whatever its state; a reschedule once per state', () => {
		expect(factOf('booking.created', { updatedAt: made })).toBe(factOf('booking.created', { updatedAt: moved }));
		expect(factOf('booking.cancelled', { updatedAt: made })).toBe(factOf('booking.cancelled', { updatedAt: moved }));
		expect(factOf('booking.no_show', { updatedAt: made })).toBe(factOf('booking.no_show', { updatedAt: moved }));
		expect(factOf('booking.rescheduled', { updatedAt: made })).not.toBe(factOf('booking.rescheduled', { updatedAt: moved }));
		expect(factOf('booking.paid', { updatedAt: made })).toBeUndefined();
	});

	it(`is bounded in total: at most ${MAX_FACTS} facts across triggers, and always the last ${MAX_FACTS / 2}`, () => {
		const facts = new BookingFactsRun();
		facts.record('t0', 'booking.created', 'evt_first', { id: 'first' });
		let largest = 0;
		for (let index = 0; index < MAX_FACTS - 1; index++) {
			facts.record(`t${index % 300}`, 'booking.created', `evt_${index}`, { id: `b${index}` });
			largest = Math.max(largest, facts.size);
		}
		// With MAX_FACTS held the first is still known; one more drops the older generation, and it with it.
		expect(largest).toBe(MAX_FACTS);
		expect(facts.judge('t0', 'booking.created', 'evt_replay', { id: 'first' }).verdict).toBe('ran');
		facts.record('t1', 'booking.created', 'evt_last', { id: 'last' });
		expect(facts.size).toBe(MAX_FACTS / 2 + 1);
		expect(facts.judge('t0', 'booking.created', 'evt_replay', { id: 'first' })).toEqual({ verdict: 'new' });
		const oldestKept = MAX_FACTS / 2 - 1; // loop index of the first fact of the newer generation, now the older
		expect(facts.judge(`t${oldestKept % 300}`, 'booking.created', 'evt_replay', { id: `b${oldestKept}` }).verdict).toBe('ran');
		// A fact recorded again moves to the newer generation and outlives its neighbours.
		const fresh = new BookingFactsRun(4);
		fresh.record('t', 'booking.created', 'evt_a', { id: 'a' });
		fresh.record('t', 'booking.created', 'evt_b', { id: 'b' });
		fresh.record('t', 'booking.created', 'evt_c', { id: 'c' }); // a and b are now the older generation
		fresh.record('t', 'booking.created', 'evt_a', { id: 'a' });
		fresh.record('t', 'booking.created', 'evt_d', { id: 'd' }); // c and a older; b dropped
		expect(['a', 'b', 'c', 'd'].map((id) => fresh.judge('t', 'booking.created', 'x', { id }).verdict)).toEqual(['ran', 'new', 'ran', 'ran']);
		expect(fresh.size).toBe(3);
	});

	it('keeps at most 40 characters of an event id, and a fact of any length as a fixed-size digest', () => {
		const facts = new BookingFactsRun();
		const long = 'x'.repeat(10_000);
		facts.record('t', factOf('booking.rescheduled', { updatedAt: long })!, `evt_${long}`, { id: 'b1' });
		expect(facts.judge('t', factOf('booking.rescheduled', { updatedAt: long })!, `evt_${long}`, { id: 'b1' })).toEqual({ verdict: 'repeat' });
		expect(facts.judge('t', factOf('booking.rescheduled', { updatedAt: long })!, 'evt_2', { id: 'b1' })).toEqual({
			verdict: 'ran',
			eventId: `evt_${long}`.slice(0, 40),
			checked: false,
		});
	});
});
