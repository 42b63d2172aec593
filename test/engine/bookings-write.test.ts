/**
 * Booking → Create and Cancel as workflows in n8n's engine against the simulator: UTC conversion, the
 * Idempotency-Key, idempotent cancel, and the service's refusals.
 */
import { describe, expect, it } from 'vitest';

import { formatInZone } from '../../nodes/shared/time.ts';
import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import {
	createBookingParameters,
	credentialsFor,
	eventTypeId,
	freeSlots,
	requestsTo,
	useTestSimulator,
} from '../harness/fixtures.ts';

const sim = useTestSimulator();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function createParameters(start: string, overrides: Record<string, unknown> = {}) {
	return createBookingParameters(eventTypeId(sim, 'intro-call'), start, overrides);
}

function bookingsOf(email: string) {
	return sim.control.bookings().filter((booking) => booking.booker.email === email);
}

describe('Create', () => {
	it('books the slot, sending the start in UTC and an Idempotency-Key', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode(
					'Book',
					createParameters(slot, {
						additionalFields: {
							phone: '+49 30 1234567',
							locale: 'ja',
							notes: 'Hello',
							notify: false,
						},
					}),
				),
			],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		const booking = result.items.Book[0].json as Record<string, any>;
		expect(booking).toMatchObject({
			start: slot,
			booker: {
				name: 'Jane Doe',
				email: 'jane@example.com',
				timezone: 'Europe/Berlin',
				phone: '+49 30 1234567',
				locale: 'ja',
			},
			bookerNotes: 'Hello',
		});
		expect(result.items.Book[0].pairedItem).toEqual({ item: 0 });
		const [request] = requestsTo(sim, '/bookings');
		expect(request.idempotencyKey).toMatch(UUID);
		expect(bookingsOf('jane@example.com')).toHaveLength(1);
	});

	it("reads a start without offset in the workflow's time zone", async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const tokyoWallClock = formatInZone(Date.parse(slot), 'Asia/Tokyo').slice(0, 19); // no offset
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Book', createParameters(tokyoWallClock))],
			credentials: credentialsFor(sim),
			timezone: 'Asia/Tokyo',
		});

		expect(result.error).toBeUndefined();
		expect(Date.parse((result.items.Book[0].json as { start: string }).start)).toBe(
			Date.parse(slot),
		);
	});

	it('gives every item its own key, so two items make two bookings', async () => {
		const [first, second] = await freeSlots(sim, 'intro-call');
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Book', createParameters('={{ $json.start }}'))],
			startItems: [{ start: first }, { start: second }],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.Book.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const keys = requestsTo(sim, '/bookings').map((request) => request.idempotencyKey);
		expect(new Set(keys).size).toBe(2);
		expect(bookingsOf('jane@example.com')).toHaveLength(2);
	});

	it('with a user-set key, running the workflow again returns the first booking instead of booking twice', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const node = () =>
			bookingServiceNode(
				'Book',
				createParameters(slot, { options: { idempotencyKey: 'order-4711' } }),
			);
		const first = await runWorkflow({ nodes: [node()], credentials: credentialsFor(sim) });
		const again = await runWorkflow({ nodes: [node()], credentials: credentialsFor(sim) });

		expect(first.error).toBeUndefined();
		expect(again.error).toBeUndefined();
		expect((again.items.Book[0].json as { id: string }).id).toBe(
			(first.items.Book[0].json as { id: string }).id,
		);
		expect(bookingsOf('jane@example.com')).toHaveLength(1);
		const keys = requestsTo(sim, '/bookings').map((request) => request.idempotencyKey);
		expect(keys[0]).toMatch(UUID);
		expect(keys[1]).toBe(keys[0]);
	});

	it('a time that is no longer free fails with 409 and says that nothing was booked', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		await runWorkflow({
			nodes: [bookingServiceNode('Book', createParameters(slot))],
			credentials: credentialsFor(sim),
		});
		const taken = await runWorkflow({
			nodes: [
				bookingServiceNode('Book', createParameters(slot, { bookerEmail: 'other@example.com' })),
			],
			credentials: credentialsFor(sim),
		});

		expect(taken.error).toMatchObject({ name: 'NodeApiError', httpCode: '409' });
		expect(taken.error!.message).toMatch(/no longer free.*no booking was made/i);
		expect(taken.error!.message).toMatch(/no booking was made\. The nearest free times: \d{4}-\d{2}-\d{2} \d{2}:\d{2}(, \d{4}-\d{2}-\d{2} \d{2}:\d{2})*\.$/);
		expect(taken.error!.message).not.toMatch(/customer|offer/i);
		expect(bookingsOf('other@example.com')).toHaveLength(0);
	});

	it('an inactive event type fails with a message saying so', async () => {
		const inactive = sim.control.eventTypes().find((eventType) => !eventType.active)!;
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode(
					'Book',
					createParameters('2026-03-10T10:00:00Z', {
						eventType: { __rl: true, mode: 'id', value: inactive.id },
					}),
				),
			],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toMatchObject({ name: 'NodeApiError' });
		expect(result.error!.message).toMatch(/event type is inactive/i);
		expect(result.error!.message).toMatch(/Choose an active event type, or activate it in the app\.$/);
	});

	it('a key reused for a different request fails with idempotency_conflict explained', async () => {
		const [first, second] = await freeSlots(sim, 'intro-call');
		const options = { options: { idempotencyKey: 'same-key' } };
		await runWorkflow({
			nodes: [bookingServiceNode('Book', createParameters(first, options))],
			credentials: credentialsFor(sim),
		});
		const conflict = await runWorkflow({
			nodes: [bookingServiceNode('Book', createParameters(second, options))],
			credentials: credentialsFor(sim),
		});

		expect(conflict.error!.message).toMatch(/Idempotency Key was already used/);
		expect(conflict.error!.message).toMatch(/use a new key, or clear the Idempotency Key option$/);
	});
});

describe('Cancel', () => {
	it('cancels with a message, and cancelling again returns the booking unchanged without an error', async () => {
		const booking = sim.control.bookings().find((candidate) => candidate.status === 'confirmed')!;
		const cancel = () =>
			runWorkflow({
				nodes: [
					bookingServiceNode('Cancel', {
						resource: 'booking',
						operation: 'cancel',
						bookingId: booking.id,
						message: 'Sorry, something came up.',
					}),
				],
				credentials: credentialsFor(sim),
			});
		const first = await cancel();
		const second = await cancel();

		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		const cancelled = first.items.Cancel[0].json as Record<string, any>;
		expect(cancelled).toMatchObject({
			id: booking.id,
			status: 'cancelled',
			cancellation: { by: 'host', reason: 'Sorry, something came up.' },
		});
		expect(second.items.Cancel[0].json).toEqual(cancelled);
		expect(requestsTo(sim, '/bookings/{id}/cancel').map((request) => request.status)).toEqual([
			200, 200,
		]);
	});
});
