// The budget for work done for requests not yet verified (a credential read, a booking look-up, a listing, GET /me): a
// flood at one trigger never keeps a genuine delivery refused, and never starves another trigger; whatever a flood's
// size and spread, what it makes the node send the service stays within the stated bound. 500 triggers:
// forged-flood.test.ts.
import { describe, expect, it } from 'vitest';
import { UNVERIFIED_REQUESTS_PER_MINUTE } from '../../nodes/BookingServiceTrigger/budget.ts';
import { rotateKey, signFromScratch } from './support.ts';
import { forgedBody, rotationSetup } from './rotation-support.ts';
import { busiestMinute } from './red-team-budget-support.ts';

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

type Shape = { triggers: number; requests: number; gapMs: (index: number) => number; failing?: boolean };
const SHAPES: Array<[string, Shape]> = [
	['one trigger, 20 a second for 75 s', { triggers: 1, requests: 1_500, gapMs: () => 50 }],
	['four triggers, 14 a second for 107 s (red team 4)', { triggers: 4, requests: 1_500, gapMs: () => 70 }],
	['ten triggers, bursts of 100 at once every 40 s', { triggers: 10, requests: 1_500, gapMs: (index) => (index % 100 === 99 ? 40_000 : 0) }],
	['six triggers, irregular gaps of 0–3 s', { triggers: 6, requests: 1_000, gapMs: (index) => ((index * 7_919) % 13) * 250 }],
	['six triggers, the service failing GET /me and listings (nothing remembered)', { triggers: 6, requests: 1_000, gapMs: () => 100, failing: true }],
];

describe(`what forged requests at rotated triggers cost the API key: at most ${UNVERIFIED_REQUESTS_PER_MINUTE} requests in any minute`, () => {
	it.each(SHAPES)('%s', async (name, shape) => {
		const triggers = [];
		for (let index = 0; index < shape.triggers; index++) triggers.push(await activeTrigger());
		const newKey = sim.control.createKey('readWrite').key;
		for (const trigger of triggers) trigger.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);
		const booking = await bookLatest(newKey); // some forgeries name it: their look-ups find it
		if (shape.failing) for (const path of ['/me', '/bookings']) sim.control.addFault({ method: 'GET', path, count: 1e6, kind: 'status', status: 500 });
		const firstSeq = sim.control.requests().at(-1)?.seq ?? 0;
		const started = Date.now();
		for (let index = 0; index < shape.requests; index++) {
			advance(shape.gapMs(index));
			const id = index % 3 === 0 ? booking.id : (index + 1).toString(16).padStart(24, 'b');
			const body = forgedBody(index % 2 === 0 ? 'booking.created' : 'booking.cancelled', { id });
			await triggers[index % triggers.length].post(body, { 'Service-Signature': signFromScratch('guess', body) });
		}
		sim.control.clearFaults();
		const sent = sim.control.requests().filter((request) => request.seq > firstSeq);
		const minutes = (Date.now() - started) / 60_000;
		const busiest = busiestMinute(sent.map((request) => Date.parse(request.at))); // the simulator's clock is n8n's here
		process.stdout.write(`[unverified bound] ${name}: ${sent.length} requests over ${minutes.toFixed(1)} min, busiest minute ${busiest}\n`);
		expect(sent.length).toBeGreaterThan(0);
		expect(busiest).toBeLessThanOrEqual(UNVERIFIED_REQUESTS_PER_MINUTE);
		expect(sent.length).toBeLessThanOrEqual(UNVERIFIED_REQUESTS_PER_MINUTE * Math.max(1, Math.ceil(minutes)));
	}, 120_000);
});
