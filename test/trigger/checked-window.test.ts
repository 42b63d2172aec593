// The checked window after a key rotation, narrowed (issue 37, 1): an unsigned request may start a run only for a
// change the service shows happened after the subscription existed and that has not run; nothing that did not run is
// remembered as run; and forged traffic cannot spend what the service's genuine retries need across its schedule.
import { describe, expect, it } from 'vitest';
import { ROTATION_NOTICE_AFTER_MS, rotationNoticeDue, rotationsSeen, RunMemory, runMemory, SECRETS_KEPT } from '../../nodes/BookingServiceTrigger/memory.ts';
import { DEFAULT_RETRY_DELAYS_SECONDS } from '../simulator/policy.ts';
import { api, rotateKey, signFromScratch } from './support.ts';
import { forgedBody, rotationSetup, runKinds } from './rotation-support.ts';

const { sim, advance, activeTrigger, bookLatest, rotatedThenCancelled, serviceSecretOf } = rotationSetup();

const noSecret = (body: string) => ({ 'Service-Signature': signFromScratch('attacker-has-no-secret', body) });
const DAY = 24 * 3_600_000;

describe('only changes made after the subscription existed (issue 37-1)', () => {
	it.each([
		['made', 'booking.created'],
		['made and cancelled', 'booking.cancelled'],
		['made and cancelled', 'booking.created'],
	] as const)('a booking %s two days before publishing, posted as %s after a rotation (no key), starts nothing', async (history, type) => {
		const booking = await bookLatest(sim.apiKeys.readWrite);
		if (history === 'made and cancelled') sim.control.cancel(booking.id, { by: 'host', reason: null });
		advance(2 * DAY);
		const trigger = await activeTrigger();
		rotateKey(sim, trigger);
		advance(60_000);

		const body = forgedBody(type, { id: booking.id });
		const answer = await trigger.post(body, noSecret(body));
		expect({ status: answer.status, runs: trigger.executions.length }).toEqual({ status: 401, runs: 0 });
	});

	it('a booking made after publishing, before the rotation, still runs from the service’s delivery after it', async () => {
		const trigger = await activeTrigger();
		const [subscription] = sim.control.webhooks();
		sim.control.setDeliveryMode({ shuffle: true }); // its delivery waits (n8n was down)
		advance(60_000);
		const booking = await bookLatest(sim.apiKeys.readWrite);
		rotateKey(sim, trigger);
		advance(60_000);
		const [event] = sim.control.events().filter((entry) => entry.data.booking.id === booking.id);
		const body = JSON.stringify(event);
		const answer = await trigger.post(body, { 'Service-Signature': signFromScratch(serviceSecretOf(subscription.id), body) });
		expect({ status: answer.status, runs: runKinds(trigger) }).toEqual({ status: 200, runs: ['booking.created'] });
	});
});

describe('only what ran is remembered as run (issue 37-3)', () => {
	it('requests acknowledged for a fact that ran leave nothing behind, so they cannot evict the genuine event', () => {
		const memory = new RunMemory(8);
		expect(memory.claim('trigger', 'evt_genuine', 'b1/booking.cancelled', 'checked')).toBe('run');
		for (let index = 0; index < 20; index++) {
			expect(memory.claim('trigger', `evt_forged_${index}`, 'b1/booking.cancelled', 'checked')).toBe('factRan');
		}
		expect(memory.size).toBe(1); // the fact only: a checked request's id is not stored
		expect(memory.claim('trigger', 'evt_genuine', 'b1/booking.cancelled', 'checked')).not.toBe('run');
	});

	it('through the trigger: forged copies of a cancellation that ran are acknowledged and add nothing to the memory', async () => {
		const { trigger, newKey, booking } = await rotatedThenCancelled();
		const record = await api(sim, 'GET', `/bookings/${booking.id}`, undefined, newKey);
		const before = runMemory.size;
		for (let index = 0; index < 20; index++) {
			advance(1_000);
			const body = forgedBody('booking.cancelled', record);
			expect((await trigger.post(body, noSecret(body))).status).toBe(200);
		}
		expect(runMemory.size).toBe(before);
		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.cancelled']);
	});
});

describe('a flood of forged requests cannot spend what genuine retries need (issue 37-4)', () => {
	it('100 forged requests a second before each of the service’s ten attempts: the genuine event runs, once', async () => {
		const trigger = await activeTrigger();
		const [subscription] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		sim.control.setDeliveryMode({ shuffle: true }); // the service's attempts are played below, each after a flood
		advance(60_000);
		const booking = await bookLatest(newKey);
		const [event] = sim.control.events().filter((entry) => entry.data.booking.id === booking.id);
		const body = JSON.stringify(event);
		const flood = async () => {
			for (let index = 0; index < 100; index++) {
				advance(10);
				const forged = forgedBody('booking.created', { id: `abcdef0123456789${String(index).padStart(8, '0')}` });
				expect((await trigger.post(forged, noSecret(forged))).status).toBe(401);
			}
		};
		const statuses: number[] = [];
		for (const delaySeconds of [0, ...DEFAULT_RETRY_DELAYS_SECONDS]) {
			advance(delaySeconds * 1000);
			await flood();
			const headers = { 'Service-Signature': signFromScratch(serviceSecretOf(subscription.id), body) };
			statuses.push((await trigger.post(body, headers)).status);
		}
		expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0);
		expect(runKinds(trigger)).toEqual(['booking.created']);
	}, 60_000);
});

describe('the window does not stay open silently', () => {
	it('an hour after the trigger began confirming deliveries, a request that would not run fails an execution saying what to do; once; republishing at once loses nothing', async () => {
		const trigger = await activeTrigger();
		const [subscription] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		await bookLatest(newKey);
		await sim.control.drainDeliveries(); // confirmed through the service, and run
		advance(ROTATION_NOTICE_AFTER_MS);
		sim.control.setDeliveryMode({ shuffle: true }); // the service's attempts are played below
		const deliver = async (bookingId: string) => {
			const [event] = sim.control.events().filter((entry) => entry.data.booking.id === bookingId);
			const body = JSON.stringify(event);
			return (await trigger.post(body, { 'Service-Signature': signFromScratch(serviceSecretOf(subscription.id), body) })).status;
		};
		const second = await bookLatest(newKey);
		const statuses: number[] = []; // the service's attempts: its answer lost, it sends the delivery again
		while (statuses.length < 3 && !statuses.includes(500)) statuses.push(await deliver(second.id));
		expect(trigger.answers.at(-1)?.error).toMatch(/API key changed.*Unpublish and publish the workflow/);
		expect(await deliver(second.id)).toBe(200); // told once
		await trigger.deactivate(); // the builder follows the notice at once
		await trigger.activate();
		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(statuses).toEqual([200, 500]);
		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.created']);
	});

	it(`is remembered for the last ${SECRETS_KEPT} subscriptions`, () => {
		for (let index = 0; index < SECRETS_KEPT + 100; index++) rotationNoticeDue(`subscription-${index}`, 0);
		expect(rotationsSeen.size).toBe(SECRETS_KEPT);
	});
});
