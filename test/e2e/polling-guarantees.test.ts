// The polling trigger's "each change once" where n8n's own scheduling matters, in a real n8n, on the poll scheduler
// BOOKING_N8N_SCHEDULER names (in-memory by default; durable: n8n 2.41's scheduler with durable cursors and, in this
// harness, N8N_SCHEDULER_POLL_TIMEOUT of 10 s — a poll budget of 5 s). Each scenario has its own simulator and
// workflow, polled every 10 seconds, and they run side by side: a service slower than the interval and than n8n's
// poll timeout; polls that fail (HTTP 500, a dropped connection, 429 with Retry-After) and then a burst of 600; a
// confirmation and a cancellation stamped in the same millisecond; a backlog far beyond the key's rate budget;
// deactivation while a poll runs; and Fetch Test Event. They run on n8n 2.41.1 (both schedulers) and 1.123.81.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { N8nClient } from '../n8n/client.ts';
import { N8N_SCHEDULER, N8N_VERSION } from '../n8n/install.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { n8n } from './n8n.ts';
import {
	book,
	countOf,
	eventsOf,
	expectDurableCursor,
	logLines,
	MINUTE,
	pollingWorkflow,
	SECOND,
	sleep,
	TRIGGER,
	until,
} from './polling-support.ts';
import { introCallSlots } from './service.ts';

interface Scenario {
	simulator: Simulator;
	workflowId: string;
}

let client: N8nClient;
const scenarios: Scenario[] = [];
const durable = N8N_SCHEDULER === 'durable';

async function scenario(name: string, options: Parameters<typeof startSimulator>[0] = {}, events?: string[]): Promise<Scenario> {
	const simulator = await startSimulator(options);
	const workflowId = await pollingWorkflow(client, simulator, name, { events });
	const created = { simulator, workflowId };
	scenarios.push(created);
	return created;
}

const ids = (events: Array<Array<[string, string]>>) => events.flat().map(([, id]) => id);
/** What n8n logged about this workflow's polls failing (the durable scheduler backs off after each). */
const backOffs = ({ workflowId }: Scenario) => logLines(client.logFile, /Poll failed; backing off/).filter((line) => line.includes(workflowId));

/** "Fetch Test Event": the editor's manual run of the trigger; returns the items of that execution. */
async function fetchTestEvent({ workflowId }: Scenario): Promise<Array<Record<string, unknown>>> {
	const workflowData = await client.rest<Record<string, unknown>>('GET', `/workflows/${workflowId}`);
	await client.rest('POST', `/workflows/${workflowId}/run`, { workflowData, triggerToStartFrom: { name: TRIGGER } });
	const deadline = Date.now() + MINUTE;
	for (;;) {
		const manual = (await client.listExecutions(workflowId)).find((execution) => execution.mode === 'manual' && execution.stoppedAt);
		if (manual) return (manual.data?.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? []).map((item) => item.json);
		if (Date.now() > deadline) throw new Error('the manual run did not finish in a minute');
		await sleep(500);
	}
}

let slow: Scenario;
let failing: Scenario;
let frozen: Scenario;
let limited: Scenario;
let deactivated: Scenario;
let sampled: Scenario;

describe.skipIf(N8N_VERSION === '2.16.1')('Booking Service Polling Trigger in n8n: each change once', () => {
	// Created and activated one after the other: n8n 1.x on SQLite refuses concurrent workflow writes.
	beforeAll(async () => {
		client = n8n();
		slow = await scenario('slow service');
		failing = await scenario('failing polls');
		frozen = await scenario('same millisecond');
		limited = await scenario('rate budget', { rateLimit: { requests: 12, perSeconds: 20 } });
		deactivated = await scenario('deactivated during a poll');
		sampled = await scenario('fetch test event', {}, ['booking.rescheduled']);
		for (const { workflowId } of scenarios) await client.activate(workflowId);
	}, 2 * MINUTE);

	afterAll(async () => {
		for (const { simulator, workflowId } of scenarios) {
			await client.deactivate(workflowId).catch(() => undefined);
			await simulator.close();
		}
	});

	it.concurrent('a service slower than the poll interval, then one answer slower than the poll timeout: each change once', async () => {
		const made = [await book(slow.simulator, 0), await book(slow.simulator, 1), await book(slow.simulator, 2)];
		const { ids: generated } = slow.simulator.control.generateBookings({ count: 1_100 });
		const expected = [...made.map((booking) => booking.id), ...generated].sort();
		// Every page of the listing takes 1 s: reading the backlog (12 pages to find its chunks, then again to report
		// them) takes longer than the 10-second interval, and than the durable scheduler's budget of 5 s (its poll
		// timeout is 10 s here), so there each poll reads what fits and the next goes on.
		slow.simulator.control.addFault({ method: 'GET', path: '/bookings', query: { sort: '-updatedAt' }, count: 100, kind: 'latency', latencyMs: 1_000 });
		const seen = await until(client, slow.workflowId, (events) => countOf(events) >= expected.length, 4 * MINUTE);
		slow.simulator.control.clearFaults();
		expect(ids(seen).sort()).toEqual(expected);
		// Then one answer takes 20 s, beyond N8N_SCHEDULER_POLL_TIMEOUT (durable: the poll gives up within its budget).
		const late = await book(slow.simulator, 3);
		slow.simulator.control.addFault({ method: 'GET', path: '/bookings', query: { sort: '-updatedAt' }, count: 1, kind: 'latency', latencyMs: 20_000 });
		const after = await until(client, slow.workflowId, (events) => countOf(events) > expected.length, 2 * MINUTE);
		await sleep(25 * SECOND);
		const all = ids(await eventsOf(client, slow.workflowId));
		expect(ids(after)).toContain(late.id);
		expect(all).toHaveLength(expected.length + 1);
		if (durable) {
			expect(logLines(client.logFile, /Poll exceeded its timeout/).filter((line) => line.includes(slow.workflowId))).toEqual([]);
			await expectDurableCursor(client, slow.workflowId);
		}
	}, 8 * MINUTE);

	it.concurrent('polls that fail (HTTP 500, a dropped connection, 429 with Retry-After 15 s), then a burst of 600: each once, in order', async () => {
		const first = await book(failing.simulator, 0);
		for (const fault of [
			{ kind: 'status', status: 500 },
			{ kind: 'drop' },
			{ kind: 'rate_limit', retryAfterSeconds: 15 },
		] as const) {
			failing.simulator.control.addFault({ method: 'GET', path: '/bookings', count: 1, ...fault });
			// Each fault is taken by the next poll's first request.
			const deadline = Date.now() + 2 * MINUTE;
			while (failing.simulator.control.faults().length > 0 && Date.now() < deadline) await sleep(500);
		}
		const { ids: burst } = failing.simulator.control.generateBookings({ count: 600 });
		const events = await until(client, failing.workflowId, (seen) => countOf(seen) >= 601, 3 * MINUTE);
		await sleep(25 * SECOND);
		const all = await eventsOf(client, failing.workflowId);
		expect(ids(all)).toEqual(ids(events));
		// Oldest change first: the booking made before the failures, then the burst (600 in one millisecond).
		expect(ids(all)[0]).toBe(first.id);
		expect(ids(all).slice(1).sort()).toEqual([...burst].sort());
		if (durable) expect(backOffs(failing).length).toBeGreaterThanOrEqual(2);
	}, 8 * MINUTE);

	it.concurrent('a confirmation and a cancellation stamped in the same millisecond: both, in order', async () => {
		const { now } = frozen.simulator.control.now();
		frozen.simulator.control.setClock(now, { frozen: true });
		const made = await book(frozen.simulator, 0);
		await until(client, frozen.workflowId, (events) => countOf(events) >= 1, 2 * MINUTE);
		frozen.simulator.control.cancel(made.id, { by: 'booker' });
		const events = await until(client, frozen.workflowId, (seen) => countOf(seen) >= 2, 2 * MINUTE);
		expect(events).toEqual([[['booking.created', made.id]], [['booking.cancelled', made.id]]]);
	}, 8 * MINUTE);

	it.concurrent('1,200 changes against a budget of 12 requests per 20 s: all arrive, none twice', async () => {
		// The 12 pages (read twice: the backlog is found, then reported oldest first) never fit in one window. A 429 with
		// Retry-After up to 20 s is waited out inside a poll where there is time (n8n 1.x, the in-memory poller), or
		// stops it (the durable scheduler's budget): after progress it reports what it has, and the next poll goes on.
		const { ids: generated } = limited.simulator.control.generateBookings({ count: 1_200 });
		const events = await until(client, limited.workflowId, (seen) => countOf(seen) >= generated.length, 6 * MINUTE);
		await sleep(25 * SECOND);
		const reported = ids(await eventsOf(client, limited.workflowId));
		expect(new Set(reported)).toEqual(new Set(generated));
		expect(reported).toHaveLength(generated.length);
		expect(events.flat()).toHaveLength(generated.length);
	}, 8 * MINUTE);

	it.concurrent('deactivated while a poll runs: nothing is lost or reported twice when it is activated again', async () => {
		await sleep(15 * SECOND); // past the first polls
		const made = await book(deactivated.simulator, 0);
		const { simulator } = deactivated;
		// The next poll's listing takes 3 s (within the durable budget); the workflow is unpublished while it waits.
		simulator.control.addFault({ method: 'GET', path: '/bookings', query: { sort: '-updatedAt' }, count: 1, kind: 'latency', latencyMs: 3_000 });
		while (simulator.control.faults().length > 0) await sleep(100);
		await client.deactivate(deactivated.workflowId);
		await sleep(5 * SECOND);
		await client.activate(deactivated.workflowId);
		await until(client, deactivated.workflowId, (seen) => countOf(seen) >= 1, 2 * MINUTE);
		await sleep(25 * SECOND);
		expect(await eventsOf(client, deactivated.workflowId)).toEqual([[['booking.created', made.id]]]);
	}, 8 * MINUTE);

	it.concurrent('Fetch Test Event shows the reschedule the active trigger reported, with its previous times', async () => {
		const made = await book(sampled.simulator, 0);
		await sleep(15 * SECOND); // a poll sees it (created: not selected)
		const [slot] = (await introCallSlots(sampled.simulator)).slice(-1);
		sampled.simulator.control.reschedule(made.id, { start: slot, by: 'host' });
		await until(client, sampled.workflowId, (seen) => countOf(seen) >= 1, 2 * MINUTE);
		const [sample] = await fetchTestEvent(sampled);
		expect(sample).toMatchObject({
			eventType: 'booking.rescheduled',
			booking: { id: made.id, start: slot },
			previous: { start: made.start, end: made.end },
		});
		expect(countOf(await eventsOf(client, sampled.workflowId))).toBe(1); // a manual run never moves the position
	}, 8 * MINUTE);
});
