// The red team's attacks on the checked window that held (issue 37; the findings and the full list: red-team.test.ts).
import { describe, expect, it } from 'vitest';
import { OPENED_SECRET_TTL_MS } from '../../nodes/BookingServiceTrigger/memory.ts';
import { freeIntroCallStarts, rotateKey, signFromScratch } from './support.ts';
import { forgedBody, rotationSetup, runKinds } from './rotation-support.ts';
import { flood, noSecret } from './red-team-support.ts';

const { sim, advance, activeTrigger, bookLatest, serviceSecretOf } = rotationSetup();

describe('attacks that held', () => {
	it('a genuine delivery captured at one rotated trigger and replayed to another under new ids runs once there', async () => {
		const [first, second] = [await activeTrigger(), await activeTrigger()];
		const newKey = sim.control.createKey('readWrite').key;
		for (const trigger of [first, second]) trigger.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);
		sim.control.setDeliveryMode({ shuffle: true });
		const booking = await bookLatest(newKey);
		const captured = JSON.parse(JSON.stringify(sim.control.events().find((entry) => entry.data.booking.id === booking.id))) as { id: string };
		const replays = ['evt_replay_1', 'evt_replay_2', captured.id].map((id) => JSON.stringify({ ...captured, id }));
		const statuses = await Promise.all(replays.map(async (body) => (await second.post(body, noSecret(body))).status));
		await sim.control.drainDeliveries(); // both triggers' own deliveries
		expect(statuses.filter((status) => status === 200)).toHaveLength(3);
		expect([runKinds(first), runKinds(second)]).toEqual([['booking.created'], ['booking.created']]);
	});

	it('a credential switched to another key and Base URL: forged and genuine requests never run, one credential read a minute', async () => {
		const trigger = await activeTrigger();
		// Another key at another Base URL (the same key still opens the secret, and signed deliveries rightly run).
		trigger.setCredential({ apiKey: sim.control.createKey('readWrite').key, baseUrl: 'http://127.0.0.1:9/v1' });
		const readsBefore = trigger.credentialReads;
		for (let minute = 0; minute < 3; minute++) {
			advance(61_000);
			await flood(trigger, 1).catch(() => undefined); // the first of each minute fails an execution (500)
			await flood(trigger, 20);
		}
		await bookLatest(sim.apiKeys.readWrite);
		await sim.control.drainDeliveries();
		expect(trigger.executions).toEqual([]);
		expect(trigger.credentialReads - readsBefore).toBeLessThanOrEqual(4);
	});

	it('a test listen after a rotation verifies signatures: a forged request at the Test URL naming a real booking is refused', async () => {
		const trigger = await activeTrigger();
		const newKey = rotateKey(sim, trigger);
		sim.control.setDeliveryMode({ shuffle: true });
		await trigger.listenForTestEvent();
		const booking = await bookLatest(newKey);
		const body = forgedBody('booking.created', { id: booking.id });
		expect((await trigger.post(body, noSecret(body), trigger.testUrl)).status).toBe(401);
		expect(trigger.executions).toEqual([]);
		await trigger.stopListening();
	});

	it('a forged request and the genuine delivery of one change, arriving together after a rotation, run it once', async () => {
		const trigger = await activeTrigger();
		const [subscription] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		sim.control.setDeliveryMode({ shuffle: true });
		const booking = await bookLatest(newKey);
		const genuine = JSON.stringify(sim.control.events().find((entry) => entry.data.booking.id === booking.id));
		const forged = forgedBody('booking.created', { id: booking.id });
		await Promise.all([
			trigger.post(genuine, { 'Service-Signature': signFromScratch(serviceSecretOf(subscription.id), genuine) }),
			trigger.post(forged, noSecret(forged)),
			trigger.post(forged, noSecret(forged)),
		]);
		expect(runKinds(trigger)).toEqual(['booking.created']);
	});
	it('a signed reschedule that ran, retried after a rotation and a notes edit, does not run again (its id ran)', async () => {
		const trigger = await activeTrigger();
		const booking = await bookLatest(sim.apiKeys.readWrite);
		const { starts } = await freeIntroCallStarts(sim);
		advance(2_000);
		sim.control.reschedule(booking.id, { start: starts[0], by: 'booker' });
		await sim.control.drainDeliveries(); // created and rescheduled run, signed
		const moved = sim.control.events().find((entry) => entry.type === 'booking.rescheduled')!;
		rotateKey(sim, trigger);
		advance(2_000);
		sim.control.editNotes(booking.id, { notes: 'parking at the back' }); // a newer change, with no event
		advance(OPENED_SECRET_TTL_MS); // the secret opened with the old key is no longer held
		// The service retries the reschedule (its answer was lost): signed with a secret the new key cannot open.
		const retry = JSON.stringify(moved);
		const answer = await trigger.post(retry, { 'Service-Signature': signFromScratch(serviceSecretOf(sim.control.webhooks()[0].id), retry) });
		expect(answer.status).toBe(200);
		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.rescheduled']);
	});
});
