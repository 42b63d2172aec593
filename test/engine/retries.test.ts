/**
 * Failure while creating a booking: lost answers (timeout, dropped connection, 5xx after the booking was stored),
 * 5xx and 429 — with n8n's Retry On Fail the result is exactly one booking, because every retry of the item sends
 * the same Idempotency-Key. And the transport's own 429 handling: waits for Retry-After, then gives up clearly.
 */
import { describe, expect, it } from 'vitest';

import { MAX_RATE_LIMIT_ATTEMPTS } from '../../nodes/shared/rateLimit.ts';
import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import {
	credentialsFor,
	eventTypeId,
	freeSlots,
	requestsTo,
	startTestSimulator,
	useTestSimulator,
} from '../harness/fixtures.ts';
import type { FaultSpec } from '../simulator/index.ts';

const sim = useTestSimulator();

const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const NODE_TIMEOUT_MS = 400;

async function createBookingWith(
	fault: Omit<FaultSpec, 'method' | 'path'>,
	settings: object = RETRY_ON_FAIL,
) {
	const [slot] = await freeSlots(sim, 'intro-call');
	sim.control.clearRequests();
	sim.control.addFault({ method: 'POST', path: '/bookings', ...fault });
	const result = await runWorkflow({
		nodes: [
			bookingServiceNode(
				'Book',
				{
					resource: 'booking',
					operation: 'create',
					eventType: { __rl: true, mode: 'id', value: eventTypeId(sim, 'intro-call') },
					start: slot,
					bookerName: 'Retry Test',
					bookerEmail: 'retry@example.com',
					bookerTimeZone: 'UTC',
					options: { timeout: NODE_TIMEOUT_MS },
				},
				settings,
			),
		],
		credentials: credentialsFor(sim),
	});
	if (fault.kind === 'latency') await allAnswered();
	const attempts = requestsTo(sim, '/bookings');
	const bookings = sim.control
		.bookings()
		.filter((booking) => booking.booker.email === 'retry@example.com');
	return { result, attempts, bookings };
}

/**
 * A delayed request is still being handled after the workflow gave up on it. Wait until the simulator has answered
 * every request, so what it does late is counted here and cannot leak into the next test.
 */
async function allAnswered(): Promise<void> {
	for (let poll = 0; poll < 100; poll++) {
		if (requestsTo(sim).every((request) => request.status !== null)) return;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	throw new Error('the simulator did not answer every request within 5 s');
}

describe('Retry On Fail never books twice', () => {
	const lostAnswers: Array<[string, Omit<FaultSpec, 'method' | 'path'>]> = [
		[
			'the answer comes after the node timed out',
			{ kind: 'latency', latencyMs: NODE_TIMEOUT_MS * 5, phase: 'after', count: 1 },
		],
		[
			'the service is slow to start: the late first try and the retry race',
			{ kind: 'latency', latencyMs: NODE_TIMEOUT_MS * 5, phase: 'before', count: 1 },
		],
		[
			'the connection drops after the booking was stored',
			{ kind: 'drop', phase: 'after', count: 1 },
		],
		[
			'a 500 replaces the answer after the booking was stored',
			{ kind: 'status', status: 500, phase: 'after', count: 2 },
		],
		[
			'a 503 comes before anything was stored',
			{ kind: 'status', status: 503, code: 'internal_error', count: 1 },
		],
	];

	it.each(lostAnswers)(
		'%s: one booking, every try with the same Idempotency-Key',
		async (_, fault) => {
			const { result, attempts, bookings } = await createBookingWith(fault);

			expect(result.error).toBeUndefined();
			expect(bookings).toHaveLength(1);
			expect((result.items.Book[0].json as { id: string }).id).toBe(bookings[0].id);
			expect(attempts.length).toBeGreaterThan(1);
			expect(new Set(attempts.map((attempt) => attempt.idempotencyKey)).size).toBe(1);
		},
	);

	it('a 429 inside Retry On Fail is first retried by the transport, still one booking', async () => {
		const { result, attempts, bookings } = await createBookingWith({
			kind: 'rate_limit',
			retryAfterSeconds: 0,
			count: 2,
		});

		expect(result.error).toBeUndefined();
		expect(bookings).toHaveLength(1);
		expect(attempts.map((attempt) => attempt.status)).toEqual([429, 429, 201]);
	});
});

describe('without Retry On Fail', () => {
	it('a timeout fails with a message that says what happened and that a retry is safe', async () => {
		const { result, bookings } = await createBookingWith(
			{ kind: 'latency', latencyMs: NODE_TIMEOUT_MS * 5, phase: 'after', count: 1 },
			{},
		);

		expect(result.error).toMatchObject({ name: 'NodeApiError' });
		expect(result.error!.message).toMatch(/did not answer POST \/bookings within/);
		expect(result.error!.message).toMatch(/it may still have acted: run it again to be sure \(it never books twice\)$/);
		expect(result.error!.description).toMatch(/Retrying is safe.*Idempotency-Key/);
		expect(bookings).toHaveLength(1); // stored by the service, answer lost: exactly why the key matters
	});

	it('a 5xx fails with a message naming the status and suggesting Retry On Fail', async () => {
		const { result, bookings } = await createBookingWith(
			{ kind: 'status', status: 500, count: 1 },
			{},
		);

		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '500' });
		expect(result.error!.message).toMatch(/failed to handle the request \(HTTP 500/);
		expect(result.error!.description).toMatch(/Retry On Fail/);
		expect(bookings).toHaveLength(0);
	});

	it('an unreachable service fails saying nothing accepts connections there', async () => {
		const closed = await startTestSimulator();
		const baseUrl = closed.baseUrl;
		await closed.close();
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim, 'readWrite', baseUrl),
		});

		expect(result.error).toMatchObject({ name: 'NodeApiError' });
		expect(result.error!.message).toBe(
			`Nothing accepts connections at ${new URL(baseUrl).host} (connection refused). Check the host and port in the Base URL of the Booking Service API credential, and that the service is running.`,
		);
		expect(result.error!.description).toMatch(/Test button/);
	});
});

describe('429 handling in the transport', () => {
	it('waits for Retry-After and then succeeds', async () => {
		sim.control.addFault({
			method: 'GET',
			path: '/me',
			kind: 'rate_limit',
			retryAfterSeconds: 1,
			count: 2,
		});
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.Me[0].json).toMatchObject({ email: expect.any(String) });
		expect(requestsTo(sim, '/me').map((request) => request.status)).toEqual([429, 429, 200]);
	});

	it(`gives up after ${MAX_RATE_LIMIT_ATTEMPTS} attempts when the rate limit never lifts, saying so`, async () => {
		sim.control.addFault({
			method: 'GET',
			path: '/me',
			kind: 'rate_limit',
			retryAfterSeconds: 0,
			count: 100,
		});
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '429' });
		expect(result.error!.message).toBe(
			`The Booking Service kept rate limiting the requests (HTTP 429 on ${MAX_RATE_LIMIT_ATTEMPTS} attempts): run it again later`,
		);
		expect(result.error!.description).toMatch(/request budget/);
		expect(requestsTo(sim, '/me')).toHaveLength(MAX_RATE_LIMIT_ATTEMPTS);
	});

	it('does not wait out a Retry-After longer than a minute: fails at once naming the wait', async () => {
		sim.control.addFault({
			method: 'GET',
			path: '/me',
			kind: 'rate_limit',
			retryAfterSeconds: 3600,
			count: 1,
		});
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toMatchObject({ httpCode: '429' });
		expect(result.error!.message).toMatch(/asks to wait 3600 seconds/);
		expect(requestsTo(sim, '/me')).toHaveLength(1);
	});

	it("the simulator's own rate limit is ridden out the same way", async () => {
		sim.control.setRateLimit({ requests: 1, perSeconds: 1 });
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			startItems: [{}, {}],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.Me).toHaveLength(2);
		expect(requestsTo(sim, '/me').filter((request) => request.status === 200)).toHaveLength(2);
	});
});
