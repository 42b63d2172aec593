// Contract, POST /bookings and GET /bookings/{id}: the booking made, its initial state, emails and
// events, slot_unavailable with no booking left behind, every body limit at its edge and one past
// it, the codes whose triggers the simulator chose (event_type_inactive, duplicate_booking), and
// Idempotency-Key.
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { bookingBody, eventTypeId, freeSlots, useSimulator } from './support/fixtures.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';

const sim = useSimulator();
let schemas: SchemaChecker;
beforeAll(async () => {
	schemas = await loadSchemas(sim());
});

/** The first intro-call start that is free right now (bookings of any type take time from it). */
async function nextIntroSlot(): Promise<string> {
	const [slot] = await freeSlots(sim(), 'intro-call', 21);
	if (slot === undefined) throw new Error('ran out of intro-call slots');
	return slot;
}

async function create(body: unknown, headers: Record<string, string> = {}) {
	return call(sim(), 'POST', '/bookings', { json: body, headers });
}

function countBookings(): number {
	return sim().control.bookings().length;
}

describe('POST /bookings', () => {
	it('creates a confirmed manual booking for a free type, emails the customer and emits booking.created', async () => {
		const start = await nextIntroSlot();
		const response = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), start, {
				booker: {
					name: 'Grace Hopper',
					email: 'grace@example.com',
					timezone: 'America/New_York',
					phone: '+1 555 0100',
				},
				notes: 'About compilers.',
			}),
		);
		expect(response.status).toBe(201);
		schemas.expect('Booking', response.body);
		expect(response.body).toMatchObject({
			status: 'confirmed',
			start,
			end: new Date(Date.parse(start) + 30 * 60_000).toISOString(),
			hostTimezone: 'Asia/Tokyo',
			eventType: { id: eventTypeId(sim(), 'intro-call'), slug: 'intro-call', name: 'Intro call' },
			booker: {
				name: 'Grace Hopper',
				email: 'grace@example.com',
				phone: '+1 555 0100',
				locale: 'en',
				timezone: 'America/New_York',
			},
			answers: [],
			bookerNotes: 'About compilers.',
			location: { kind: 'google_meet' },
			source: 'manual',
			payment: null,
			cancellation: null,
		});
		expect(response.body.joinUrl).toMatch(/^https:\/\//);
		const events = sim()
			.control.events()
			.filter((event) => event.data.booking.id === response.body.id);
		expect(events.map((event) => event.type)).toEqual(['booking.created']);
		expect(events[0].data.booking).toEqual(response.body);
		const emails = sim()
			.control.emails()
			.filter((email) => email.bookingId === response.body.id);
		expect(emails).toEqual([
			expect.objectContaining({ to: 'grace@example.com', kind: 'booking_confirmation' }),
		]);
		const read = await call(sim(), 'GET', `/bookings/${response.body.id}`);
		expect(read.status).toBe(200);
		expect(read.body).toEqual(response.body);
	});

	it('with notify false sends no email and emits no booking.created', async () => {
		const response = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot(), { notify: false }),
		);
		expect(response.status).toBe(201);
		expect(response.body.status).toBe('confirmed');
		expect(
			sim()
				.control.events()
				.filter((event) => event.data.booking.id === response.body.id),
		).toEqual([]);
		expect(
			sim()
				.control.emails()
				.filter((email) => email.bookingId === response.body.id),
		).toEqual([]);
	});

	it('takes no payment for a type paid online: awaiting_payment, then confirmed with booking.created on success', async () => {
		const [start] = await freeSlots(sim(), 'studio-session');
		const response = await create(bookingBody(eventTypeId(sim(), 'studio-session'), start));
		expect(response.status).toBe(201);
		expect(response.body).toMatchObject({
			status: 'awaiting_payment',
			payment: {
				amount: 5000,
				currency: 'JPY',
				status: 'unpaid',
				refundedAmount: 0,
				receiptUrl: null,
			},
			location: { kind: 'in_person', address: expect.any(String) },
		});
		const id = response.body.id;
		expect(
			sim()
				.control.events()
				.filter((event) => event.data.booking.id === id),
		).toEqual([]);
		const paid = sim().control.payment(id, { outcome: 'succeeded' });
		expect(paid).toMatchObject({
			status: 'confirmed',
			payment: { status: 'paid', receiptUrl: expect.stringMatching(/^https:/) },
		});
		const events = sim()
			.control.events()
			.filter((event) => event.data.booking.id === id);
		expect(events.map((event) => event.type)).toEqual(['booking.created']);
		expect(() => sim().control.payment(id, { outcome: 'succeeded' })).toThrow(
			/not awaiting payment/,
		);
	});

	it('cancels as the system when the payment is not completed', async () => {
		const [start] = await freeSlots(sim(), 'career-coaching');
		const response = await create(bookingBody(eventTypeId(sim(), 'career-coaching'), start));
		expect(response.body.payment).toMatchObject({
			amount: 4500,
			currency: 'USD',
			status: 'unpaid',
		});
		const cancelled = sim().control.payment(response.body.id, { outcome: 'not_completed' });
		expect(cancelled).toMatchObject({
			status: 'cancelled',
			cancellation: { by: 'system', reason: null },
			payment: { status: 'failed' },
		});
		const events = sim()
			.control.events()
			.filter((event) => event.data.booking.id === response.body.id);
		expect(events.map((event) => event.type)).toEqual(['booking.cancelled']);
	});

	it('confirms a pay-on-arrival booking at once, unpaid', async () => {
		const [start] = await freeSlots(sim(), 'language-lesson');
		const response = await create(bookingBody(eventTypeId(sim(), 'language-lesson'), start));
		expect(response.body).toMatchObject({
			status: 'confirmed',
			payment: { amount: 2500, currency: 'EUR', status: 'unpaid' },
		});
	});

	it('books invite-only types too', async () => {
		const [start] = await freeSlots(sim(), 'phone-consultation');
		const response = await create(bookingBody(eventTypeId(sim(), 'phone-consultation'), start));
		expect(response.status).toBe(201);
		expect(response.body.location).toEqual({
			kind: 'phone',
			direction: 'host_calls',
			hostPhone: '+81 3-1234-5678',
		});
	});
});

describe('time not free', () => {
	it.each([
		[
			'a time already booked',
			() =>
				sim()
					.control.bookings()
					.find(
						(booking) => booking.status === 'confirmed' && booking.eventType.slug === 'intro-call',
					)!.start,
		],
		['a start off the slot grid', () => '2030-01-08T00:10:00.000Z'],
		['a start in the past', () => '2030-01-04T00:00:00.000Z'],
		['a start inside the minimum notice', () => '2030-01-07T01:00:00.000Z'],
		['a weekend start', () => '2030-01-12T01:00:00.000Z'],
		['a time the calendar is busy', () => '2030-01-08T03:00:00.000Z'],
	])('answers 409 slot_unavailable for %s, and no booking exists', async (_name, start) => {
		const before = countBookings();
		const response = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), start(), {
				booker: { name: 'Late', email: 'late@example.com', timezone: 'UTC' },
			}),
		);
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('slot_unavailable');
		expect(countBookings()).toBe(before);
	});

	it('answers 409 duplicate_booking when the same booker already holds that very time', async () => {
		// Seeded: Emma's confirmed intro call.
		const emma = sim()
			.control.bookings()
			.find(
				(booking) => booking.booker.email === 'emma@example.org' && booking.status === 'confirmed',
			)!;
		const before = countBookings();
		const response = await create(
			bookingBody(emma.eventType.id, emma.start, {
				booker: { name: 'Emma', email: 'EMMA@example.org', timezone: 'UTC' },
			}),
		);
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('duplicate_booking');
		expect(countBookings()).toBe(before);
	});

	it('answers 409 event_type_inactive for an inactive type', async () => {
		const before = countBookings();
		const response = await create(
			bookingBody(eventTypeId(sim(), 'legacy-workshop'), '2030-01-08T01:00:00.000Z'),
		);
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('event_type_inactive');
		expect(countBookings()).toBe(before);
	});
});

describe('body limits', () => {
	const email254 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;

	it.each([
		[
			'booker.name of 1 character',
			{ booker: { name: 'A', email: 'x1@example.com', timezone: 'UTC' } },
		],
		[
			'booker.name of 120 characters',
			{ booker: { name: 'n'.repeat(120), email: 'x2@example.com', timezone: 'UTC' } },
		],
		['booker.email of 254 characters', { booker: { name: 'E', email: email254, timezone: 'UTC' } }],
		[
			'booker.phone of 40 characters',
			{ booker: { name: 'P', email: 'x3@example.com', timezone: 'UTC', phone: '1'.repeat(40) } },
		],
		[
			'booker.locale ja',
			{ booker: { name: 'L', email: 'x4@example.com', timezone: 'Asia/Tokyo', locale: 'ja' } },
		],
		[
			'an IANA alias time zone',
			{ booker: { name: 'Z', email: 'x5@example.com', timezone: 'Asia/Calcutta' } },
		],
		['notes of 2000 characters', { notes: 'n'.repeat(2000) }],
		['notify true', { notify: true }],
	])('accepts %s', async (_name, overrides) => {
		expect(email254).toHaveLength(254);
		const response = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot(), overrides),
		);
		expect(response.status, JSON.stringify(response.body)).toBe(201);
	});

	it.each([
		[
			'booker.name empty',
			'booker.name',
			{ booker: { name: '', email: 'y@example.com', timezone: 'UTC' } },
		],
		[
			'booker.name of 121 characters',
			'booker.name',
			{ booker: { name: 'n'.repeat(121), email: 'y@example.com', timezone: 'UTC' } },
		],
		[
			'booker.email of 255 characters',
			'booker.email',
			{ booker: { name: 'E', email: `a${email254}`, timezone: 'UTC' } },
		],
		[
			'booker.email without @',
			'booker.email',
			{ booker: { name: 'E', email: 'example.com', timezone: 'UTC' } },
		],
		[
			'booker.phone of 41 characters',
			'booker.phone',
			{ booker: { name: 'P', email: 'y@example.com', timezone: 'UTC', phone: '1'.repeat(41) } },
		],
		[
			'booker.phone null',
			'booker.phone',
			{ booker: { name: 'P', email: 'y@example.com', timezone: 'UTC', phone: null } },
		],
		[
			'booker.locale fr',
			'booker.locale',
			{ booker: { name: 'L', email: 'y@example.com', timezone: 'UTC', locale: 'fr' } },
		],
		[
			'booker.timezone unknown',
			'booker.timezone',
			{ booker: { name: 'Z', email: 'y@example.com', timezone: 'Europe/Atlantis' } },
		],
		[
			'booker.timezone as an offset',
			'booker.timezone',
			{ booker: { name: 'Z', email: 'y@example.com', timezone: '+09:00' } },
		],
		[
			'booker with an unknown field',
			'booker.age',
			{ booker: { name: 'Z', email: 'y@example.com', timezone: 'UTC', age: 3 } },
		],
		['booker not an object', 'booker', { booker: 'Ada' }],
		['booker missing', 'booker', { booker: undefined }],
		['notes of 2001 characters', 'notes', { notes: 'n'.repeat(2001) }],
		['notify as a string', 'notify', { notify: 'false' }],
		['eventTypeId not 24 hex', 'eventTypeId', { eventTypeId: 'intro-call' }],
		['start without Z', 'start', { start: '2030-01-08T01:00:00' }],
		['start with an offset', 'start', { start: '2030-01-08T10:00:00+09:00' }],
		['start not a real date', 'start', { start: '2030-02-30T01:00:00Z' }],
		['an unknown top-level field', 'answers', { answers: [] }],
	])('refuses %s with validation_failed naming %s', async (_name, field, overrides) => {
		const before = countBookings();
		const response = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), '2030-01-08T01:00:00.000Z', overrides),
		);
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details).toContainEqual({ field, message: expect.any(String) });
		expect(countBookings()).toBe(before);
	});
});

describe('Idempotency-Key', () => {
	it('returns the same booking (201) for a repeated key and body, and books only once', async () => {
		const body = bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot());
		const headers = { 'Idempotency-Key': '0b9f6e1c-2d4a-4c8e-9b1a-7f3e5d2c1a00' };
		const before = countBookings();
		const first = await create(body, headers);
		const second = await create(body, headers);
		expect(first.status).toBe(201);
		expect(second.status).toBe(201);
		expect(second.body.id).toBe(first.body.id);
		expect(countBookings()).toBe(before + 1);
		const created = sim()
			.control.events()
			.filter((event) => event.data.booking.id === first.body.id);
		expect(created).toHaveLength(1);
	});

	it('treats the same fields in another order as the same body', async () => {
		const start = await nextIntroSlot();
		const id = eventTypeId(sim(), 'intro-call');
		const headers = { 'Idempotency-Key': 'order-test' };
		const first = await create(
			{ eventTypeId: id, start, booker: { name: 'O', email: 'o@example.com', timezone: 'UTC' } },
			headers,
		);
		const second = await create(
			{ booker: { timezone: 'UTC', email: 'o@example.com', name: 'O' }, start, eventTypeId: id },
			headers,
		);
		expect(second.status).toBe(201);
		expect(second.body.id).toBe(first.body.id);
	});

	it('answers 409 idempotency_conflict for the same key with a different body, creating nothing', async () => {
		const headers = { 'Idempotency-Key': 'conflict-test' };
		const first = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot()),
			headers,
		);
		expect(first.status).toBe(201);
		const before = countBookings();
		const second = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot()),
			headers,
		);
		expect(second.status).toBe(409);
		expect(second.body.error.code).toBe('idempotency_conflict');
		expect(countBookings()).toBe(before);
	});

	it('makes a retry after a lost response safe: the booking exists once and the retry returns it', async () => {
		const body = bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot());
		const headers = { 'Idempotency-Key': 'lost-response' };
		const before = countBookings();
		sim().control.addFault({
			method: 'POST',
			path: '/bookings',
			count: 1,
			kind: 'drop',
			phase: 'after',
		});
		await expect(create(body, headers)).rejects.toThrow();
		expect(countBookings()).toBe(before + 1);
		const retry = await create(body, headers);
		expect(retry.status).toBe(201);
		expect(retry.body.id).toBe(sim().control.bookings().at(-1)!.id);
		expect(countBookings()).toBe(before + 1);
	});

	it('without a key, the same request twice is a duplicate booking, not a second one', async () => {
		const body = bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot());
		expect((await create(body)).status).toBe(201);
		const again = await create(body);
		expect(again.status).toBe(409);
		expect(again.body.error.code).toBe('duplicate_booking');
	});

	it('refuses a key longer than 255 characters', async () => {
		const response = await create(
			bookingBody(eventTypeId(sim(), 'intro-call'), await nextIntroSlot()),
			{
				'Idempotency-Key': 'k'.repeat(256),
			},
		);
		expect(response.status).toBe(400);
		expect(response.body.error.details).toContainEqual({
			field: 'Idempotency-Key',
			message: expect.any(String),
		});
	});
});

describe('GET /bookings/{id}', () => {
	it('returns every seeded booking as a full Booking', async () => {
		for (const booking of sim().control.bookings()) {
			const response = await call(sim(), 'GET', `/bookings/${booking.id}`);
			expect(response.status).toBe(200);
			schemas.expect('Booking', response.body);
			expect(response.body).toEqual(booking);
		}
	});

	it('seeds every status, payment status, source and location kind', () => {
		const bookings = sim().control.bookings();
		const values = (pick: (booking: (typeof bookings)[number]) => unknown) =>
			new Set(bookings.map(pick));
		expect(values((booking) => booking.status)).toEqual(
			new Set(['held', 'awaiting_payment', 'confirmed', 'cancelled', 'completed', 'no_show']),
		);
		expect(values((booking) => booking.payment?.status ?? null)).toEqual(
			new Set([null, 'unpaid', 'paid', 'refunded', 'partially_refunded', 'failed']),
		);
		expect(values((booking) => booking.source)).toEqual(
			new Set(['public', 'manual', 'reschedule']),
		);
		expect(values((booking) => booking.location.kind)).toEqual(
			new Set(['google_meet', 'teams', 'phone', 'in_person', 'custom']),
		);
		expect(
			bookings.some((booking) =>
				booking.answers.some((answer) => typeof answer.value === 'boolean'),
			),
		).toBe(true);
	});
});
