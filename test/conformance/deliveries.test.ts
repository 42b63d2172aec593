// Contract, Events: signed deliveries through undici to a local receiver (the simulator runs with
// the local-use switch, so http://127.0.0.1 targets are allowed), stable event ids across retries,
// back-off on the simulated clock, redirects not followed, the timeout, 410 deleting the
// subscription, 20 failures spanning three days disabling it, forced duplicates and disorder, and
// the address re-check before every delivery.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { bookFirstFreeSlot, freeSlots, useSimulator } from './support/fixtures.ts';
import { startReceiver } from './support/receiver.ts';
import type { Receiver } from './support/receiver.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';
import { hmacSha256, verifySignature } from './support/signature.ts';

const DELIVERY_TIMEOUT_MS = 400;
const sim = useSimulator({
	allowInsecureWebhookTargets: true,
	deliveryTimeoutMs: DELIVERY_TIMEOUT_MS,
	rateLimit: false,
});
let schemas: SchemaChecker;
let receiver: Receiver;

beforeAll(async () => {
	schemas = await loadSchemas(sim());
});
beforeEach(async () => {
	sim().control.reset();
	receiver = await startReceiver();
});
afterEach(async () => {
	await receiver.close();
});

async function subscribe(
	events: string[] = ['*'],
	url = receiver.url,
): Promise<{ id: string; secret: string }> {
	const response = await call(sim(), 'POST', '/webhooks', { json: { url, events } });
	expect(response.status, JSON.stringify(response.body)).toBe(201);
	return response.body;
}

function subscription(id: string) {
	return sim()
		.control.webhooks()
		.find((candidate) => candidate.id === id);
}

describe('the receiver’s HMAC', () => {
	it('matches RFC 4231 test case 2', () => {
		const mac = hmacSha256(Buffer.from('Jefe'), Buffer.from('what do ya want for nothing?'));
		expect(mac.toString('hex')).toBe(
			'5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
		);
	});
});

describe('a delivery', () => {
	it('carries the four headers, a signature over "<t>.<raw body>" and the event body', async () => {
		const { id: subscriptionId, secret } = await subscribe();
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		const log = await sim().control.drainDeliveries();
		expect(receiver.received).toHaveLength(1);
		const [delivery] = receiver.received;
		expect(delivery.headers['content-type']).toBe('application/json');
		expect(delivery.headers['user-agent']).toBe('Service-Webhooks/1');
		expect(delivery.headers['service-event-id']).toBe(delivery.body.id);
		expect(delivery.headers['service-event-type']).toBe('booking.created');
		const signature = verifySignature(
			secret,
			String(delivery.headers['service-signature']),
			delivery.rawBody,
		);
		expect(signature.valid).toBe(true);
		const now = Date.parse(sim().control.now().now) / 1000;
		expect(signature.timestamp).toBeLessThanOrEqual(now);
		expect(signature.timestamp).toBeGreaterThan(now - 60);
		expect(
			verifySignature(`${secret}x`, String(delivery.headers['service-signature']), delivery.rawBody)
				.valid,
		).toBe(false);
		const tampered = Buffer.from(
			delivery.rawBody.toString('utf8').replace('"confirmed"', '"cancelled"'),
		);
		expect(
			verifySignature(secret, String(delivery.headers['service-signature']), tampered).valid,
		).toBe(false);

		schemas.expect('BookingCreatedEvent', delivery.body);
		expect(delivery.body).toMatchObject({
			type: 'booking.created',
			apiVersion: 'v1',
			data: { booking },
		});
		expect(delivery.body.id).toMatch(/^evt_/);
		expect(log).toEqual([
			expect.objectContaining({
				eventId: delivery.body.id,
				type: 'booking.created',
				subscriptionId,
				url: receiver.url,
				attempt: 1,
				outcome: 'delivered',
				status: 204,
			}),
		]);
		expect(subscription(subscriptionId)).toMatchObject({
			lastSuccessAt: expect.any(String),
			consecutiveFailures: 0,
		});
	});

	it('signs with the simulated clock, so a clock set back yields stale timestamps', async () => {
		const { secret } = await subscribe();
		sim().control.setClock('2030-01-01T00:00:00.000Z');
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		const signature = verifySignature(
			secret,
			String(receiver.received[0].headers['service-signature']),
			receiver.received[0].rawBody,
		);
		expect(signature.valid).toBe(true);
		expect(
			Math.abs(signature.timestamp - Date.parse('2030-01-01T00:00:00.000Z') / 1000),
		).toBeLessThan(60);
	});

	it('sends each of the four kinds, only to subscriptions listing it or *', async () => {
		const all = await subscribe(['*']);
		const onlyCancelled = await subscribe(['booking.cancelled']);
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		const [, later] = await freeSlots(sim(), 'intro-call');
		sim().control.reschedule(booking.id, { start: later, by: 'booker' });
		sim().control.noShow(booking.id);
		const other = await bookFirstFreeSlot(sim(), 'intro-call');
		sim().control.cancel(other.id, { by: 'booker', reason: 'ill' });
		await sim().control.drainDeliveries();
		const bySubscription = (id: string) =>
			sim()
				.control.deliveries()
				.filter((entry) => entry.subscriptionId === id)
				.map((entry) => entry.type);
		expect(bySubscription(all.id)).toEqual([
			'booking.created',
			'booking.rescheduled',
			'booking.no_show',
			'booking.created',
			'booking.cancelled',
		]);
		expect(bySubscription(onlyCancelled.id)).toEqual(['booking.cancelled']);
		const names: Record<string, string> = {
			'booking.created': 'BookingCreatedEvent',
			'booking.rescheduled': 'BookingRescheduledEvent',
			'booking.no_show': 'BookingNoShowEvent',
			'booking.cancelled': 'BookingCancelledEvent',
		};
		for (const delivery of receiver.received)
			schemas.expect(names[delivery.body.type], delivery.body);
	});

	it('reports a reschedule as one booking.rescheduled with the same id and the previous time', async () => {
		await subscribe();
		const booking = await bookFirstFreeSlot(sim(), 'intro-call');
		const slots = await freeSlots(sim(), 'intro-call');
		const moved = sim().control.reschedule(booking.id, { start: slots[3], by: 'host' });
		expect(moved).toMatchObject({ id: booking.id, start: slots[3], status: 'confirmed' });
		await sim().control.drainDeliveries();
		const types = receiver.received.map((delivery) => delivery.body.type);
		expect(types).toEqual(['booking.created', 'booking.rescheduled']);
		const rescheduled = receiver.received[1].body;
		expect(rescheduled.data.booking.id).toBe(booking.id);
		expect(rescheduled.data.booking.start).toBe(slots[3]);
		expect(rescheduled.data.previous).toEqual({ start: booking.start, end: booking.end });
	});
});

describe('retries', () => {
	it('retries on the simulated clock with the same event id and the same bytes', async () => {
		const { id } = await subscribe();
		receiver.answer = (_delivery, index) => ({ status: index < 2 ? 503 : 200 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect(receiver.received).toHaveLength(1);
		expect(subscription(id)).toMatchObject({ consecutiveFailures: 1, status: 'active' });
		await sim().control.advanceClock(59);
		expect(receiver.received).toHaveLength(1);
		await sim().control.advanceClock(1);
		expect(receiver.received).toHaveLength(2);
		expect(subscription(id)!.consecutiveFailures).toBe(2);
		await sim().control.advanceClock(300);
		expect(receiver.received).toHaveLength(3);
		expect(subscription(id)).toMatchObject({
			consecutiveFailures: 0,
			lastSuccessAt: expect.any(String),
		});
		const eventIds = new Set(
			receiver.received.map((delivery) => delivery.headers['service-event-id']),
		);
		expect(eventIds.size).toBe(1);
		expect(
			new Set(receiver.received.map((delivery) => delivery.rawBody.toString('hex'))).size,
		).toBe(1);
		expect(
			sim()
				.control.deliveries()
				.map((entry) => [entry.attempt, entry.outcome, entry.status]),
		).toEqual([
			[1, 'failed', 503],
			[2, 'failed', 503],
			[3, 'delivered', 200],
		]);
	});

	it('does not follow a redirect: a 3xx is a failed attempt', async () => {
		await subscribe();
		receiver.answer = () => ({ status: 302, headers: { location: `${receiver.url}/elsewhere` } });
		await bookFirstFreeSlot(sim(), 'intro-call');
		const log = await sim().control.drainDeliveries();
		expect(receiver.received).toHaveLength(1);
		expect(log).toEqual([expect.objectContaining({ outcome: 'failed', status: 302 })]);
	});

	it('counts no answer within the timeout as a failure', async () => {
		await subscribe();
		receiver.answer = () => ({ status: 200, delayMs: DELIVERY_TIMEOUT_MS * 5 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		const log = await sim().control.drainDeliveries();
		expect(log).toEqual([
			expect.objectContaining({ outcome: 'failed', error: expect.stringContaining('timeout') }),
		]);
	});

	it('counts a refused connection as a failure', async () => {
		await subscribe(['*'], 'http://127.0.0.1:9/closed');
		await bookFirstFreeSlot(sim(), 'intro-call');
		const log = await sim().control.drainDeliveries();
		expect(log).toEqual([
			expect.objectContaining({
				outcome: 'failed',
				error: expect.stringContaining('ECONNREFUSED'),
			}),
		]);
	});

	it('stops after the last back-off step (ten attempts by default)', async () => {
		await subscribe();
		receiver.answer = () => ({ status: 500 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.advanceClock(7 * 86_400);
		expect(receiver.received).toHaveLength(10);
		expect(
			sim()
				.control.deliveries()
				.map((entry) => entry.attempt),
		).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
	});
});

describe('subscription rules', () => {
	it('deletes the subscription when the endpoint answers 410, effective at once', async () => {
		const { id } = await subscribe();
		receiver.answer = () => ({ status: 410 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect(subscription(id)).toBeUndefined();
		expect((await call(sim(), 'DELETE', `/webhooks/${id}`)).status).toBe(404);
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.advanceClock(86_400);
		expect(receiver.received).toHaveLength(1);
	});

	it('stays active after 20 failures within minutes, and disables once the failures span three days', async () => {
		const { id } = await subscribe(['booking.created']);
		receiver.answer = () => ({ status: 500 });
		for (let index = 0; index < 20; index += 1)
			await bookFirstFreeSlot(sim(), 'intro-call', { notify: true });
		await sim().control.drainDeliveries();
		expect(subscription(id)).toMatchObject({ status: 'active', consecutiveFailures: 20 });
		// The retries fall at +1 min, +6 min, … +1.9 days, +2.9 days, +3.9 days (the default back-off).
		await sim().control.advanceClock(2.9 * 86_400);
		expect(subscription(id)!.status).toBe('active');
		await sim().control.advanceClock(86_400);
		expect(subscription(id)!.status).toBe('disabled');
		const streakStart = Date.parse(subscription(id)!.failureStreakStartedAt!);
		const lastFailure = sim()
			.control.deliveries()
			.filter((entry) => entry.outcome === 'failed')
			.at(-1)!;
		expect(Date.parse(lastFailure.at) - streakStart).toBeGreaterThanOrEqual(3 * 86_400_000);
		expect(sim().control.emails()).toContainEqual(
			expect.objectContaining({ kind: 'webhook_disabled', to: 'aiko@example.com' }),
		);
		// Disabled: queued retries are dropped and new events are not sent.
		const sent = receiver.received.length;
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.advanceClock(86_400);
		expect(receiver.received).toHaveLength(sent);
		// The owner switches it back on in the app: deliveries resume.
		receiver.answer = () => ({ status: 204 });
		expect(sim().control.enableWebhook(id)).toMatchObject({
			status: 'active',
			consecutiveFailures: 0,
		});
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect(receiver.received).toHaveLength(sent + 1);
	});

	it('stays active when failures span three days but number fewer than 20', async () => {
		const { id } = await subscribe();
		receiver.answer = () => ({ status: 500 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.advanceClock(5 * 86_400);
		expect(subscription(id)).toMatchObject({ status: 'active', consecutiveFailures: 10 });
	});

	it('starts the count again after a success', async () => {
		const { id } = await subscribe();
		receiver.answer = (_delivery, index) => ({ status: index === 15 ? 204 : 500 });
		for (let index = 0; index < 15; index += 1) await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect(subscription(id)!.consecutiveFailures).toBe(15);
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect(subscription(id)).toMatchObject({
			consecutiveFailures: 0,
			failureStreakStartedAt: null,
		});
	});

	it('drops queued retries of a deleted subscription', async () => {
		const { id } = await subscribe();
		receiver.answer = () => ({ status: 500 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect((await call(sim(), 'DELETE', `/webhooks/${id}`)).status).toBe(204);
		await sim().control.advanceClock(86_400);
		expect(receiver.received).toHaveLength(1);
		expect(
			sim()
				.control.deliveries()
				.map((entry) => entry.outcome),
		).toEqual(['failed', 'skipped']);
	});

	it('re-checks the target before every delivery and never connects to a refused one', async () => {
		await subscribe();
		sim().control.setInsecureWebhookTargets({ allowed: false });
		await bookFirstFreeSlot(sim(), 'intro-call');
		const log = await sim().control.drainDeliveries();
		expect(receiver.received).toHaveLength(0);
		expect(log).toEqual([
			expect.objectContaining({
				outcome: 'failed',
				error: expect.stringContaining('target refused'),
			}),
		]);
	});
});

describe('duplicates and disorder', () => {
	it('sends extra copies with the same event id when asked', async () => {
		await subscribe();
		sim().control.setDeliveryMode({ duplicates: 2 });
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		expect(receiver.received).toHaveLength(3);
		expect(
			new Set(receiver.received.map((delivery) => delivery.headers['service-event-id'])).size,
		).toBe(1);
	});

	it('holds deliveries back and sends them out of order at the next drain when asked', async () => {
		await subscribe();
		sim().control.setDeliveryMode({ shuffle: true });
		for (let index = 0; index < 4; index += 1) await bookFirstFreeSlot(sim(), 'intro-call');
		expect(receiver.received).toHaveLength(0);
		await sim().control.drainDeliveries();
		const emitted = sim()
			.control.events()
			.map((event) => event.id);
		const received = receiver.received.map((delivery) => delivery.body.id);
		expect(new Set(received)).toEqual(new Set(emitted));
		expect(received).not.toEqual(emitted);
	});

	it('lets later events overtake a failed one waiting for its retry', async () => {
		await subscribe();
		receiver.answer = (_delivery, index) => ({ status: index === 0 ? 500 : 204 });
		const first = await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.drainDeliveries();
		await bookFirstFreeSlot(sim(), 'intro-call');
		await sim().control.advanceClock(60);
		const order = receiver.received.map((delivery) => delivery.body.data.booking.id);
		expect(order).toHaveLength(3);
		expect(order[2]).toBe(first.id);
	});
});
