// Counterexamples the webhook trigger's model-based test (test/model/webhook.model.test.ts) found, shrunk and written
// out as ordinary tests, each named after the history that produced it.
import { describe, expect, it, vi } from 'vitest';
import { TestCredentialsHelper } from '../harness/engine.ts';
import { forgedBody, rotationSetup, runKinds } from './rotation-support.ts';
import { freeIntroCallStarts, rotateKey, signFromScratch } from './support.ts';

const { sim, advance, activeTrigger, bookLatest } = rotationSetup();

/** The next `count` credential reads fail (n8n could not decrypt it, or its database was unreachable for a moment). */
function failCredentialReads(count: number): void {
	const read = TestCredentialsHelper.prototype.getDecrypted;
	const spy = vi.spyOn(TestCredentialsHelper.prototype, 'getDecrypted');
	for (let failure = 0; failure < count; failure++) spy.mockRejectedValueOnce(new Error('Connection terminated unexpectedly'));
	spy.mockImplementation(read);
}

describe('model counterexamples', () => {
	// [credentialUnreadable(×2), reactivate, book, cancel(0)] (seed 2): n8n's clean-up after the failed re-activation
	// ran with the credential still unreadable; at the next publish the kept subscription was deleted with the
	// booking's creation and cancellation still being retried to it (the six known defects: no. 2).
	it('events made while a re-activation failed on an unreadable credential run once the workflow is published again', async () => {
		const trigger = await activeTrigger();
		failCredentialReads(2);
		await expect(trigger.activate('update')).rejects.toThrow();
		vi.restoreAllMocks();
		const booking = await bookLatest(sim.apiKeys.readWrite);
		advance(60_000);
		sim.control.cancel(booking.id, { by: 'host', reason: null });
		await sim.control.drainDeliveries(); // refused: n8n has the workflow inactive after the failed activation

		await trigger.activate('activate'); // the user publishes again
		for (let retry = 0; retry < 12; retry++) {
			advance(12 * 3_600_000); // the service's retries, over days
			await sim.control.drainDeliveries();
		}

		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.cancelled']);
	});

	// [testListen, fault(500 on DELETE /webhooks/{id} ×1), stopListening, …] (seed 9): the test subscription whose
	// DELETE failed was never deleted, not even by the next test listen (the six known defects: no. 6, with a 500).
	it('a test subscription whose DELETE failed is deleted at the next test listen', async () => {
		const trigger = await activeTrigger();
		await trigger.listenForTestEvent();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 1, kind: 'status', status: 500 });
		await trigger.stopListening().catch(() => {});
		advance(60_000);

		await trigger.listenForTestEvent();
		await trigger.stopListening();

		expect(sim.control.webhooks().map((subscription) => subscription.url)).toEqual([trigger.productionUrl]);
	});

	// [rotateKey, forge(real booking, 9)] (seed 11, on the code before issue 37's fixes): a forged booking.created
	// naming a booking made before the workflow was published ran (the six known defects: no. 1).
	it('after a key rotation, a forged creation of a booking made before publishing does not run', async () => {
		const trigger = await activeTrigger();
		rotateKey(sim, trigger);
		advance(1_000);
		const earlier = sim.control.bookings()[9]; // seeded: made before the workflow was published
		const body = forgedBody('booking.created', earlier);
		const forged = await trigger.post(body, { 'Service-Signature': signFromScratch('attacker-has-no-secret', body) });

		expect({ forged: forged.status >= 400, runs: runKinds(trigger) }).toEqual({ forged: true, runs: [] });
	});

	// [deliveryMode(shuffle), book, reschedule(0), rotateKey, reschedule(0)] (seed 3737; seed 99 found it with a
	// reactivate after; issue 37's model once a reschedule counts as a fact): after a rotation, the deliveries of two
	// reschedules of one booking arrive once both have happened (held back, reordered). Each is checked against the
	// booking as the service has it now, so both name the same change (its latest updatedAt) and the second is
	// acknowledged without a run; the docs' rotation row says every event still runs once. Open.
	it.fails('after a rotation, two reschedules of one booking delivered after both happened each run', async () => {
		const trigger = await activeTrigger();
		sim.control.setDeliveryMode({ shuffle: true }); // the service holds deliveries back until the next drain
		const booking = await bookLatest(sim.apiKeys.readWrite);
		const { starts } = await freeIntroCallStarts(sim);
		advance(1_000);
		sim.control.reschedule(booking.id, { start: starts[0], by: 'booker' });
		advance(1_000);
		const newKey = rotateKey(sim, trigger);
		advance(1_000);
		sim.control.reschedule(booking.id, { start: starts[1], by: 'booker' });
		advance(1_000);
		expect(newKey).not.toBe(sim.apiKeys.readWrite);

		sim.control.setDeliveryMode({ shuffle: false });
		await sim.control.drainDeliveries();

		expect(runKinds(trigger).sort()).toEqual(['booking.created', 'booking.rescheduled', 'booking.rescheduled']);
	});
});
