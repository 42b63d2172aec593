// The polling trigger's "each change once" where n8n's own scheduling matters, in a real n8n: a service slower than
// the poll interval (n8n starts the next poll while the last still runs), a confirmation and a cancellation stamped in
// the same millisecond, and a backlog far beyond the key's rate budget. n8n polls once a minute at most, so the three
// run side by side, each with its own simulator and workflow, to keep the suite's time to one scenario's. They run
// on n8n 2.41.1 and 1.123.81 (the newest of each line); CI's time is spent elsewhere on 2.16.1.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution, N8nClient } from '../n8n/client.ts';
import { startSimulator, type Booking, type Simulator } from '../simulator/index.ts';
import { N8N_VERSION } from '../n8n/install.ts';
import { CREDENTIAL_TYPE, n8n, PACKAGE } from './n8n.ts';
import { introCallSlots, service } from './service.ts';

const TRIGGER = 'Booking Service Polling Trigger';
const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Scenario {
	simulator: Simulator;
	workflowId: string;
}

let client: N8nClient;
const scenarios: Scenario[] = [];
let slow: Scenario;
let frozen: Scenario;
let limited: Scenario;

async function scenario(name: string, options: Parameters<typeof startSimulator>[0] = {}): Promise<Scenario> {
	const simulator = await startSimulator(options);
	const credential = await client.createCredential({
		name: `Booking Service (${name})`,
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readOnly, baseUrl: simulator.baseUrl },
	});
	const { id } = await client.createWorkflow({
		name: `polling guarantees: ${name}`,
		nodes: [
			{
				name: TRIGGER,
				type: `${PACKAGE}.bookingServicePollingTrigger`,
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['*'], options: {} },
				credentials: { [CREDENTIAL_TYPE]: credential },
			},
			{ name: 'No Operation', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] } },
	});
	const created = { simulator, workflowId: id };
	scenarios.push(created);
	return created;
}

/** The events ([type, booking id]) of each finished execution, oldest execution first. */
async function executions({ workflowId }: Scenario): Promise<Array<Array<[string, string]>>> {
	const finished: Execution[] = (await client.listExecutions(workflowId)).filter((execution) => execution.stoppedAt);
	return finished.reverse().map((execution) =>
		(execution.data?.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? []).map((item) => [
			String(item.json.eventType),
			String((item.json.booking as Booking).id),
		]),
	);
}

/** Polls n8n until `done` holds for the executions, or the deadline passes; returns the last executions seen. */
async function until(target: Scenario, done: (events: Array<Array<[string, string]>>) => boolean, timeoutMs: number) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const seen = await executions(target);
		if (done(seen) || Date.now() > deadline) return seen;
		await sleep(2_000);
	}
}

async function book(simulator: Simulator, index: number): Promise<Booking> {
	return await service<Booking>(simulator, 'POST', '/bookings', {
		eventTypeId: simulator.control.eventType('intro-call').id,
		start: (await introCallSlots(simulator))[index],
		booker: { name: `Poller ${index}`, email: `poller.${randomUUID()}@example.com`, timezone: 'UTC' },
	});
}

const countOf = (events: Array<Array<[string, string]>>) => events.flat().length;

describe.skipIf(N8N_VERSION === '2.16.1')('Booking Service Polling Trigger in n8n: each change once', () => {
	// Created and activated one after the other: n8n 1.x on SQLite refuses concurrent workflow writes.
	beforeAll(async () => {
		client = n8n();
		slow = await scenario('slow service');
		frozen = await scenario('same millisecond');
		limited = await scenario('rate budget', { rateLimit: { requests: 12, perSeconds: 3_600 } });
		for (const { workflowId } of scenarios) await client.activate(workflowId);
	}, 2 * MINUTE);

	afterAll(async () => {
		for (const { simulator, workflowId } of scenarios) {
			await client.deactivate(workflowId).catch(() => undefined);
			await simulator.close();
		}
	});

	it.concurrent('a service slower than the poll interval: the overlapping poll reports nothing twice', async () => {
		const made = [await book(slow.simulator, 0), await book(slow.simulator, 1), await book(slow.simulator, 2)];
		const { ids } = slow.simulator.control.generateBookings({ count: 150 });
		// The next poll reads two pages, 45 s each (each within the node's 60 s request timeout): it runs 90 s, so
		// n8n's next tick, a minute after it started, starts another poll while it still runs.
		slow.simulator.control.addFault({ method: 'GET', path: '/bookings', count: 2, kind: 'latency', latencyMs: 45_000 });
		const expected = [...made.map((booking) => booking.id), ...ids].sort();
		const seen = await until(slow, (events) => countOf(events) >= expected.length, 5 * MINUTE);
		await sleep(MINUTE + 10_000); // one more poll
		const all = (await executions(slow)).flat();
		expect(seen.flat().map(([, id]) => id).sort()).toEqual(expected);
		expect(all).toHaveLength(expected.length);
	}, 8 * MINUTE);

	it.concurrent('a confirmation and a cancellation stamped in the same millisecond: both, in order', async () => {
		const { now } = frozen.simulator.control.now();
		frozen.simulator.control.setClock(now, { frozen: true });
		const made = await book(frozen.simulator, 0);
		await until(frozen, (events) => countOf(events) >= 1, 3 * MINUTE);
		frozen.simulator.control.cancel(made.id, { by: 'booker' });
		const events = await until(frozen, (seen) => countOf(seen) >= 2, 3 * MINUTE);
		expect(events).toEqual([[['booking.created', made.id]], [['booking.cancelled', made.id]]]);
	}, 8 * MINUTE);

	it.concurrent('1,500 changes against a budget of 12 requests an hour: all arrive over several polls, none twice', async () => {
		const { ids } = limited.simulator.control.generateBookings({ count: 1_500 });
		// Every 20 s a new hour begins at the service: each poll gets a fresh budget of 12 requests, never enough for
		// the 15 pages of the backlog (and a Retry-After of up to an hour, which no poll waits out).
		let done = false;
		const clock = (async () => {
			while (!done) {
				await sleep(20_000);
				await limited.simulator.control.advanceClock(3_600);
			}
		})();
		const events = await until(limited, (seen) => countOf(seen) >= ids.length, 7 * MINUTE);
		done = true;
		await clock;
		const reported = events.flat().map(([, id]) => id);
		expect(new Set(reported)).toEqual(new Set(ids));
		expect(reported).toHaveLength(ids.length);
		expect(events.length).toBeGreaterThanOrEqual(2);
	}, 9 * MINUTE);
});
