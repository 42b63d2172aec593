// Contract, POST /bookings/{id}/cancel: the customer is emailed, a paid booking refunded in full
// and booking.cancelled emitted — once; cancelling again returns the booking unchanged and sends
// nothing.
import { describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { bookFirstFreeSlot, useSimulator } from './support/fixtures.ts';

const sim = useSimulator();

function sideEffects(bookingId: string) {
	return {
		events: sim()
			.control.events()
			.filter((event) => event.data.booking.id === bookingId)
			.map((event) => event.type),
		emails: sim()
			.control.emails()
			.filter((email) => email.bookingId === bookingId)
			.map((email) => email.kind),
	};
}

async function cancel(id: string, body: unknown = {}) {
	return call(sim(), 'POST', `/bookings/${id}/cancel`, { json: body });
}

describe('POST /bookings/{id}/cancel', () => {
	it('cancels as the host with the message as reason, emails and emits once; a repeat changes and sends nothing', async () => {
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.advanceClock(5);
		const first = await cancel(booking.id, { message: 'Double-booked, sorry.' });
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({
			id: booking.id,
			status: 'cancelled',
			cancellation: { by: 'host', reason: 'Double-booked, sorry.', at: first.body.updatedAt },
		});
		expect(first.body.updatedAt > booking.updatedAt).toBe(true);
		expect(sideEffects(booking.id)).toEqual({
			events: ['booking.created', 'booking.cancelled'],
			emails: ['booking_confirmation', 'booking_cancelled'],
		});
		const second = await cancel(booking.id, { message: 'again' });
		expect(second.status).toBe(200);
		expect(second.body).toEqual(first.body);
		expect(sideEffects(booking.id)).toEqual({
			events: ['booking.created', 'booking.cancelled'],
			emails: ['booking_confirmation', 'booking_cancelled'],
		});
	});

	it('refunds a paid booking in full, once', async () => {
		const paid = sim()
			.control.bookings()
			.find((booking) => booking.status === 'confirmed' && booking.payment?.status === 'paid')!;
		const first = await cancel(paid.id);
		expect(first.body).toMatchObject({
			status: 'cancelled',
			cancellation: { by: 'host', reason: null },
			payment: {
				status: 'refunded',
				refundedAmount: paid.payment!.amount,
				amount: paid.payment!.amount,
			},
		});
		await cancel(paid.id);
		expect(sideEffects(paid.id).emails.filter((kind) => kind === 'refund_issued')).toHaveLength(1);
		expect(sideEffects(paid.id).events).toEqual(['booking.cancelled']);
	});

	it('refunds nothing when nothing was paid (awaiting payment, pay on arrival)', async () => {
		for (const booking of sim()
			.control.bookings()
			.filter((candidate) => candidate.payment?.status === 'unpaid')) {
			const response = await cancel(booking.id);
			expect(response.status).toBe(200);
			expect(response.body.payment).toMatchObject({ status: 'unpaid', refundedAmount: 0 });
			expect(sideEffects(booking.id).emails).not.toContain('refund_issued');
		}
	});

	it('cancels a held booking', async () => {
		const held = sim()
			.control.bookings()
			.find((booking) => booking.status === 'held')!;
		expect((await cancel(held.id)).body.status).toBe('cancelled');
	});

	it('frees the time again', async () => {
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		const day = booking.start.slice(0, 10);
		const slotsPath = `/event-types/${booking.eventType.id}/slots?from=${day}&to=${day}&timezone=UTC`;
		expect((await call(sim(), 'GET', slotsPath)).body.slots).not.toContain(booking.start);
		await cancel(booking.id);
		expect((await call(sim(), 'GET', slotsPath)).body.slots).toContain(booking.start);
	});

	it.each(['completed', 'no_show'])(
		'answers 409 booking_state_changed for a %s booking (the simulator’s choice)',
		async (status) => {
			const booking = sim()
				.control.bookings()
				.find((candidate) => candidate.status === status)!;
			const response = await cancel(booking.id);
			expect(response.status).toBe(409);
			expect(response.body.error.code).toBe('booking_state_changed');
			expect(
				sim()
					.control.bookings()
					.find((candidate) => candidate.id === booking.id)!.status,
			).toBe(status);
		},
	);

	it('accepts a message of 1000 characters and refuses 1001', async () => {
		const first = await bookFirstFreeSlot(sim(), 'intro-call');
		const tooLong = await cancel(first.id, { message: 'm'.repeat(1001) });
		expect(tooLong.status).toBe(400);
		expect(tooLong.body.error.details).toEqual([{ field: 'message', message: expect.any(String) }]);
		const ok = await cancel(first.id, { message: 'm'.repeat(1000) });
		expect(ok.status).toBe(200);
		expect(ok.body.cancellation.reason).toHaveLength(1000);
	});

	it('needs a JSON object body with only message in it', async () => {
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		const noBody = await call(sim(), 'POST', `/bookings/${booking.id}/cancel`);
		expect(noBody.status).toBe(400);
		expect(noBody.body.error.code).toBe('validation_failed');
		const extra = await cancel(booking.id, { reason: 'wrong field name' });
		expect(extra.status).toBe(400);
		expect(extra.body.error.details).toEqual([{ field: 'reason', message: expect.any(String) }]);
		const notString = await cancel(booking.id, { message: 42 });
		expect(notString.body.error.details).toEqual([
			{ field: 'message', message: expect.any(String) },
		]);
		expect(
			sim()
				.control.bookings()
				.find((candidate) => candidate.id === booking.id)!.status,
		).toBe('confirmed');
	});
});
