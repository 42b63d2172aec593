// What forged requests cost when many triggers are active: 500 active triggers (20 accounts of 25 subscriptions, the
// contract's limit), 10,000 forged requests with well-formed signature headers spread over all of them. Every one is
// refused and starts nothing; the credential reads they cause stay at one per trigger (an opened secret stays in
// memory for a while; each read is paid from its trigger's own share, so floods elsewhere cannot keep a trigger's
// credential unread: red team 3, 7); the in-memory stores stay bounded; and
// triggers that had verified a genuine delivery before the flood still verify the next without reading anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { SECRETS_KEPT, secretMemory } from '../../nodes/BookingServiceTrigger/memory.ts';
import { bookIntroCalls, signFromScratch, syntheticEvent } from './support.ts';

const ACCOUNTS = 20;
const TRIGGERS_PER_ACCOUNT = 25;
const FORGED_REQUESTS = 10_000;
const IN_FLIGHT = 25;

const simulators: Simulator[] = [];
const triggers: TriggerHarness[] = [];

beforeAll(async () => {
	for (let account = 0; account < ACCOUNTS; account++) {
		const simulator = await startSimulator({ allowInsecureWebhookTargets: true, rateLimit: false, seed: account + 1 });
		simulators.push(simulator);
		for (let index = 0; index < TRIGGERS_PER_ACCOUNT; index++) {
			const trigger = await startTriggerHarness({
				baseUrl: simulator.baseUrl,
				apiKey: simulator.apiKeys.readWrite,
				parameters: { events: ['*'], options: {} },
			});
			triggers.push(trigger);
			await trigger.activate();
		}
	}
}, 120_000);

afterAll(async () => {
	for (const trigger of triggers) await trigger.close();
	for (const simulator of simulators) await simulator.close();
});

function totalReads(): number {
	return triggers.reduce((sum, trigger) => sum + trigger.credentialReads, 0);
}

describe('forged requests against 500 active triggers', () => {
	it('cost credential reads within the budget for unverified work, not one per request', async () => {
		expect(triggers).toHaveLength(ACCOUNTS * TRIGGERS_PER_ACCOUNT);
		// The first account's 25 triggers receive a genuine delivery first: their secrets are now known to this process.
		const genuine = triggers.slice(0, TRIGGERS_PER_ACCOUNT);
		await bookIntroCalls(simulators[0], 1);
		await simulators[0].control.drainDeliveries();
		expect(genuine.map((trigger) => trigger.executions.length)).toEqual(Array(TRIGGERS_PER_ACCOUNT).fill(1));

		const readsBefore = totalReads();
		const readsPerTriggerBefore = triggers.map((trigger) => trigger.credentialReads);
		const started = Date.now();
		const statuses = new Map<number, number>();
		let next = 0;
		await Promise.all(
			Array.from({ length: IN_FLIGHT }, async () => {
				for (let index = next++; index < FORGED_REQUESTS; index = next++) {
					const body = syntheticEvent('booking.created', { id: 'abcdefabcdefabcdefabcdef' });
					const answer = await triggers[index % triggers.length].post(body, {
						'Service-Signature': signFromScratch(`guess-${index}`, body),
					});
					statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
				}
			}),
		);
		const elapsedSeconds = (Date.now() - started) / 1000;
		const reads = totalReads() - readsBefore;
		const bound = triggers.length - TRIGGERS_PER_ACCOUNT; // the genuine ones' secrets are known already
		process.stdout.write(
			`[forged flood] ${FORGED_REQUESTS} forged requests over ${triggers.length} triggers in ${elapsedSeconds.toFixed(1)} s: ${reads} credential reads (bound ${bound})\n`,
		);

		expect(Object.fromEntries(statuses)).toEqual({ 401: FORGED_REQUESTS });
		expect(triggers.slice(TRIGGERS_PER_ACCOUNT).every((trigger) => trigger.executions.length === 0)).toBe(true);
		expect(genuine.every((trigger) => trigger.executions.length === 1)).toBe(true);
		expect(reads).toBeLessThanOrEqual(bound);
		// A secret once opened stays in memory: the flood cost each trigger one credential read at most, not one per request.
		expect(Math.max(...triggers.map((trigger, index) => trigger.credentialReads - readsPerTriggerBefore[index]))).toBe(1);
		expect(secretMemory.size).toBeLessThanOrEqual(SECRETS_KEPT);

		// The flood did not push the genuine triggers' secrets out: their next deliveries verify without a read.
		const readsAfterFlood = genuine.map((trigger) => trigger.credentialReads);
		await bookIntroCalls(simulators[0], 1);
		await simulators[0].control.drainDeliveries();
		expect(genuine.map((trigger) => trigger.executions.length)).toEqual(Array(TRIGGERS_PER_ACCOUNT).fill(2));
		expect(genuine.map((trigger) => trigger.credentialReads)).toEqual(readsAfterFlood);
	}, 180_000);
});
