// The control interface (not under /v1): the request log, faults, the rate limit, the clock,
// generated bookings, events from outside the API and reset — over HTTP, as other tools use it.
import { describe, expect, it } from 'vitest';
import { call, control } from './support/client.ts';
import { bookFirstFreeSlot, eventTypeId, freeSlots, useSimulator } from './support/fixtures.ts';

const sim = useSimulator();

describe('request log', () => {
	it('records every /v1 request with its status and idempotency key, and never a key', async () => {
		await control(sim(), 'DELETE', '/requests');
		await call(sim(), 'GET', '/bookings?limit=2&status=held,confirmed');
		await call(sim(), 'GET', '/me', { key: null });
		await call(sim(), 'POST', '/bookings', { json: {}, headers: { 'Idempotency-Key': 'log-key' } });
		await call(sim(), 'GET', '/openapi.json', { key: null });
		const log = await control(sim(), 'GET', '/requests');
		expect(log.status).toBe(200);
		expect(log.body.items).toEqual([
			expect.objectContaining({
				seq: expect.any(Number),
				method: 'GET',
				path: '/v1/bookings',
				route: '/bookings',
				query: { limit: '2', status: 'held,confirmed' },
				status: 200,
				idempotencyKey: null,
				at: expect.stringMatching(/Z$/),
			}),
			expect.objectContaining({ method: 'GET', path: '/v1/me', status: 401 }),
			expect.objectContaining({
				method: 'POST',
				path: '/v1/bookings',
				status: 400,
				idempotencyKey: 'log-key',
			}),
			expect.objectContaining({ method: 'GET', path: '/v1/openapi.json', status: 200 }),
		]);
		const text = JSON.stringify(log.body);
		expect(text).not.toContain(sim().apiKeys.readWrite);
		expect(text).not.toContain(sim().apiKeys.readOnly);
		expect(text.toLowerCase()).not.toContain('authorization');
		expect((await control(sim(), 'DELETE', '/requests')).status).toBe(204);
		expect((await control(sim(), 'GET', '/requests')).body.items).toEqual([]);
	});
});

describe('faults', () => {
	it('answers a chosen status for the next N requests of a route, then normally', async () => {
		const added = await control(sim(), 'POST', '/faults', {
			method: 'GET',
			path: '/bookings/{id}',
			count: 2,
			kind: 'status',
			status: 503,
			code: 'internal_error',
		});
		expect(added.status).toBe(204);
		const id = sim().control.bookings()[0].id;
		for (let index = 0; index < 2; index += 1) {
			const response = await call(sim(), 'GET', `/bookings/${id}`);
			expect(response.status).toBe(503);
			expect(response.body.error.code).toBe('internal_error');
		}
		expect((await call(sim(), 'GET', '/bookings')).status).toBe(200);
		expect((await call(sim(), 'GET', `/bookings/${id}`)).status).toBe(200);
	});

	it('injects 429 rate_limited with Retry-After', async () => {
		await control(sim(), 'POST', '/faults', {
			method: 'GET',
			path: '/v1/me',
			count: 1,
			kind: 'rate_limit',
			retryAfterSeconds: 7,
		});
		const response = await call(sim(), 'GET', '/me');
		expect(response.status).toBe(429);
		expect(response.headers['retry-after']).toBe('7');
		expect(response.body.error.code).toBe('rate_limited');
	});

	it('drops the connection', async () => {
		sim().control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'drop' });
		await expect(call(sim(), 'GET', '/me')).rejects.toThrow();
		const log = sim().control.requests();
		expect(log.at(-1)).toMatchObject({ path: '/v1/me', status: null });
	});

	it('delays the answer', async () => {
		sim().control.addFault({
			method: 'GET',
			path: '/me',
			count: 1,
			kind: 'latency',
			latencyMs: 50,
		});
		const response = await call(sim(), 'GET', '/me');
		expect(response.status).toBe(200);
	});

	it('with phase after, processes the request in full and replaces only the response', async () => {
		const [start] = await freeSlots(sim(), 'intro-call');
		const before = sim().control.bookings().length;
		sim().control.addFault({
			method: 'POST',
			path: '/bookings',
			count: 1,
			kind: 'status',
			status: 500,
			phase: 'after',
		});
		const response = await call(sim(), 'POST', '/bookings', {
			json: {
				eventTypeId: eventTypeId(sim(), 'intro-call'),
				start,
				booker: { name: 'F', email: 'f@example.com', timezone: 'UTC' },
			},
		});
		expect(response.status).toBe(500);
		expect(sim().control.bookings()).toHaveLength(before + 1);
		expect(sim().control.bookings().at(-1)!.start).toBe(start);
	});

	it('matches any route with path *, lists pending faults, and clears them', async () => {
		sim().control.addFault({ method: '*', path: '*', count: 5, kind: 'status', status: 502 });
		expect((await call(sim(), 'GET', '/event-types')).status).toBe(502);
		expect((await control(sim(), 'GET', '/faults')).body.items).toEqual([
			expect.objectContaining({ count: 4 }),
		]);
		expect((await control(sim(), 'DELETE', '/faults')).status).toBe(204);
		expect((await call(sim(), 'GET', '/event-types')).status).toBe(200);
	});

	it('refuses a malformed fault', async () => {
		const response = await control(sim(), 'POST', '/faults', {
			method: 'GET',
			path: '/me',
			count: 0,
			kind: 'status',
		});
		expect(response.status).toBe(400);
		expect(
			(
				await control(sim(), 'POST', '/faults', {
					method: 'GET',
					path: '/me',
					count: 1,
					kind: 'explode',
				})
			).status,
		).toBe(400);
	});
});

describe('rate limit', () => {
	it('answers 429 rate_limited with Retry-After once the budget is spent, per key, until the window passes', async () => {
		expect(
			(await control(sim(), 'POST', '/rate-limit', { requests: 3, perSeconds: 60 })).status,
		).toBe(204);
		for (let index = 0; index < 3; index += 1)
			expect((await call(sim(), 'GET', '/me')).status).toBe(200);
		const limited = await call(sim(), 'GET', '/me');
		expect(limited.status).toBe(429);
		expect(limited.body.error.code).toBe('rate_limited');
		const retryAfter = Number(limited.headers['retry-after']);
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(60);
		expect((await call(sim(), 'GET', '/me', { key: sim().apiKeys.readOnly })).status).toBe(200);
		await sim().control.advanceClock(60);
		expect((await call(sim(), 'GET', '/me')).status).toBe(200);
		expect((await control(sim(), 'POST', '/rate-limit', false)).status).toBe(204);
		for (let index = 0; index < 10; index += 1)
			expect((await call(sim(), 'GET', '/me')).status).toBe(200);
	});
});

describe('clock', () => {
	it('reads, sets and advances the simulated time', async () => {
		const set = await control(sim(), 'POST', '/clock', { now: '2030-02-01T00:00:00Z' });
		expect(set.body.now.slice(0, 16)).toBe('2030-02-01T00:00');
		const advanced = await control(sim(), 'POST', '/clock/advance', { seconds: 3600 });
		expect(advanced.body.now.slice(0, 16)).toBe('2030-02-01T01:00');
		expect((await control(sim(), 'GET', '/clock')).body.now.slice(0, 16)).toBe('2030-02-01T01:00');
		expect((await control(sim(), 'POST', '/clock', { now: 'tomorrow' })).status).toBe(400);
		expect((await control(sim(), 'POST', '/clock/advance', { seconds: -1 })).status).toBe(400);
		await control(sim(), 'POST', '/reset');
		expect((await control(sim(), 'GET', '/clock')).body.now.slice(0, 16)).toBe('2030-01-07T00:00');
	});
});

describe('bookings and event types', () => {
	it('lists every booking in every status and every event type', async () => {
		const bookings = await control(sim(), 'GET', '/bookings');
		expect(
			new Set(bookings.body.items.map((booking: { status: string }) => booking.status)).size,
		).toBe(6);
		const eventTypes = await control(sim(), 'GET', '/event-types');
		expect(eventTypes.body.items).toHaveLength(7);
	});

	it('generates bookings silently', async () => {
		const eventsBefore = sim().control.events().length;
		const generated = await control(sim(), 'POST', '/bookings/generate', {
			count: 3,
			status: 'cancelled',
		});
		expect(generated.body.ids).toHaveLength(3);
		const bookings = sim()
			.control.bookings()
			.filter((booking) => generated.body.ids.includes(booking.id));
		expect(
			bookings.every((booking) => booking.status === 'cancelled' && booking.cancellation !== null),
		).toBe(true);
		const paid = await control(sim(), 'POST', '/bookings/generate', {
			count: 1,
			status: 'awaiting_payment',
		});
		expect(
			sim()
				.control.bookings()
				.find((booking) => booking.id === paid.body.ids[0])!.payment!.status,
		).toBe('unpaid');
		expect(sim().control.events()).toHaveLength(eventsBefore);
		expect(
			(await control(sim(), 'POST', '/bookings/generate', { count: 1, status: 'lost' })).status,
		).toBe(400);
	});

	it('moves bookings the way bookers and hosts do', async () => {
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		const slots = await freeSlots(sim(), 'intro-call');
		const moved = await control(sim(), 'POST', `/bookings/${booking.id}/reschedule`, {
			start: slots[1],
			by: 'booker',
		});
		expect(moved.body).toMatchObject({ id: booking.id, start: slots[1] });
		const taken = await control(sim(), 'POST', `/bookings/${booking.id}/reschedule`, {
			start: sim()
				.control.bookings()
				.find((candidate) => candidate.status === 'held')!.start,
			by: 'host',
		});
		expect(taken.status).toBe(409);
		expect(taken.body.error.code).toBe('slot_unavailable');
		const cancelled = await control(sim(), 'POST', `/bookings/${booking.id}/cancel`, {
			by: 'booker',
			reason: 'moved away',
		});
		expect(cancelled.body.cancellation).toMatchObject({ by: 'booker', reason: 'moved away' });
		const again = await control(sim(), 'POST', `/bookings/${booking.id}/reschedule`, {
			start: slots[2],
			by: 'host',
		});
		expect(again.status).toBe(409);
		expect(again.body.error.code).toBe('booking_state_changed');
		const noShow = await control(sim(), 'POST', `/bookings/${booking.id}/no-show`);
		expect(noShow.body.error.code).toBe('booking_state_changed');
		const missing = await control(sim(), 'POST', '/bookings/0123456789abcdef01234567/no-show');
		expect(missing.status).toBe(404);
		const emails = sim()
			.control.emails()
			.filter((email) => email.bookingId === booking.id);
		expect(emails.map((email) => [email.kind, email.to])).toEqual([
			['booking_confirmation', 'ada@example.com'],
			['booking_rescheduled', 'aiko@example.com'],
			['booking_cancelled', 'ada@example.com'],
		]);
	});

	it('settles payments over HTTP', async () => {
		const awaiting = sim()
			.control.bookings()
			.find((booking) => booking.status === 'awaiting_payment')!;
		const paid = await control(sim(), 'POST', `/bookings/${awaiting.id}/payment`, {
			outcome: 'succeeded',
		});
		expect(paid.body.status).toBe('confirmed');
		const again = await control(sim(), 'POST', `/bookings/${awaiting.id}/payment`, {
			outcome: 'not_completed',
		});
		expect(again.status).toBe(409);
	});
});

describe('reset', () => {
	it('returns to the seeded state: same keys, same data, no subscriptions, logs or faults', async () => {
		await control(sim(), 'POST', '/reset');
		const seeded = sim().control.bookings();
		await bookFirstFreeSlot(sim(), 'intro-call');
		sim().control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'status', status: 500 });
		sim().control.setRateLimit({ requests: 1, perSeconds: 3600 });
		expect((await control(sim(), 'POST', '/reset')).status).toBe(204);
		expect(sim().control.bookings()).toEqual(seeded);
		expect(sim().control.requests()).toEqual([]);
		expect(sim().control.events()).toEqual([]);
		expect(sim().control.emails()).toEqual([]);
		expect(sim().control.webhooks()).toEqual([]);
		for (let index = 0; index < 3; index += 1)
			expect((await call(sim(), 'GET', '/me')).status).toBe(200);
	});

	it('answers 404 for an unknown control path', async () => {
		expect((await control(sim(), 'GET', '/nothing')).status).toBe(404);
	});
});
