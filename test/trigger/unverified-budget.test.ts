// The budget for work done for requests not yet verified (a credential read, a booking look-up): a flood at one
// trigger never keeps a genuine delivery refused, and never starves another trigger. 500 triggers: forged-flood.test.ts.
import { describe, expect, it } from 'vitest';
import { rotateKey, signFromScratch } from './support.ts';
import { forgedBody, rotationSetup } from './rotation-support.ts';

const { sim, advance, activeTrigger, bookLatest } = rotationSetup();

describe('forged floods', () => {
	it('R19-3: 20 forged requests a second do not keep a genuine delivery refused; the flood costs one credential read', async () => {
		const trigger = await activeTrigger(); // no delivery yet: its secret is not in this process's memory
		const readsBefore = trigger.credentialReads;
		const forge = async () => {
			const body = forgedBody('booking.created', { id: 'abcdefabcdefabcdefabcdef' });
			return await trigger.post(body, { 'Service-Signature': signFromScratch('guess', body) });
		};
		const forgedStatuses = new Set<number>();
		for (let index = 0; index < 110; index++) forgedStatuses.add((await forge()).status); // past the old burst

		sim.control.setDeliveryMode({ shuffle: true });
		await bookLatest(sim.apiKeys.readWrite);
		await sim.control.drainDeliveries(); // first attempt, during the flood
		const genuine = trigger.received.find((request) => request.headers['service-event-id'] !== undefined &&
			!String(request.headers['service-event-id']).startsWith('evt_r'))!;
		expect(genuine).toBeDefined();
		expect(trigger.executions).toHaveLength(1);

		// The service retries (here every 5 s, re-sent as received: its t stays within five minutes) while the flood goes on.
		const headers = Object.fromEntries(
			['service-signature', 'service-event-id', 'service-event-type'].map((name) => [name, String(genuine.headers[name])]),
		);
		const retries: number[] = [];
		for (let step = 1; step <= 600; step++) {
			advance(100);
			forgedStatuses.add((await forge()).status);
			forgedStatuses.add((await forge()).status);
			if (step % 50 === 0) retries.push((await trigger.post(genuine.rawBody, headers)).status);
		}

		expect(retries).toEqual(Array(12).fill(200));
		expect(trigger.executions).toHaveLength(1);
		expect([...forgedStatuses]).toEqual([401]);
		expect(trigger.credentialReads - readsBefore).toBe(1);
		expect(trigger.logs.some((line) => line.message.includes('too many unverified requests'))).toBe(false);
	}, 60_000);

	it("after a rotation, a flood of look-ups aimed at one trigger leaves another trigger's deliveries checked and run", async () => {
		const flooded = await activeTrigger();
		const other = await activeTrigger();
		const newKey = rotateKey(sim, flooded);
		other.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		// Well-formed requests naming a booking: each would cost a look-up, paid from the flooded trigger's share.
		const statuses = new Set<number>();
		for (let index = 0; index < 300; index++) {
			advance(50);
			const body = forgedBody('booking.created', { id: `abcdefabcdefabcdef${String(index).padStart(6, '0')}` });
			statuses.add((await flooded.post(body, { 'Service-Signature': signFromScratch('guess', body) })).status);
		}
		expect([...statuses]).toEqual([401]);
		expect(flooded.logs.some((line) => line.message.includes('too many unverified requests'))).toBe(true);

		await bookLatest(newKey);
		await sim.control.drainDeliveries();
		expect(other.answers.map((answer) => answer.status)).toEqual([200]);
		expect(other.executions).toHaveLength(1);
	}, 60_000);
});
