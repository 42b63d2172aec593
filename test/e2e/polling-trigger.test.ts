// The Booking Service Polling Trigger in a real n8n, with its own n8n process so it can be restarted: activation
// starts from now, each kind of change made between two polls reaches the workflow once with the right event, a
// restart of n8n between polls loses and repeats nothing, deactivate/activate continues where it was, and — what n8n's
// durable scheduler changed — a first poll a minute after activation, with n8n restarted before it, still reports
// every change made since activation. Runs on the scheduler BOOKING_N8N_SCHEDULER names (test/n8n/install.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../n8n/install.ts';
import { startN8n, type N8nInstance } from '../n8n/instance.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import {
	book,
	countOf,
	eventsOf,
	expectDurableCursor,
	MINUTE,
	pollingWorkflow,
	pollTimes,
	secondFromNow,
	SECOND,
	sleep,
	until,
	type Events,
} from './polling-support.ts';
import { introCallSlots } from './service.ts';

let simulator: Simulator;
let userFolder: string;
let n8n: N8nInstance;
let workflowId: string;

async function start(): Promise<N8nInstance> {
	return await startN8n({ packageDir: REPO_ROOT, userFolder, logFile: join(userFolder, 'n8n.log') });
}

beforeAll(async () => {
	simulator = await startSimulator({});
	userFolder = mkdtempSync(join(tmpdir(), 'n8n-polling-'));
	n8n = await start();
	workflowId = await pollingWorkflow(n8n, simulator, 'e2e');
}, 180_000);

afterAll(async () => {
	await n8n?.stop();
	await simulator?.close();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
});

/** Waits until `count` more events than `before` have arrived (polls every 10 s); returns the new executions' events. */
async function next(id: string, before: Events, count: number): Promise<Events> {
	const seen = await until(n8n, id, (events) => countOf(events) >= countOf(before) + count, 2 * MINUTE);
	return seen.slice(before.length);
}

/**
 * Waits until the activation poll has read its position (the newest change, listed after the in-flight bookings):
 * "from now" is when that poll ran, and n8n's publish returns before it runs (later still on the durable scheduler
 * or a busy machine), so a booking made earlier would rightly count as history.
 */
async function activationPositionTaken(): Promise<void> {
	const deadline = Date.now() + 2 * MINUTE;
	for (;;) {
		const listings = simulator.control.requests().filter((entry) => entry.route === '/bookings' && entry.status === 200);
		const inFlight = listings.findIndex((entry) => entry.query.status === 'awaiting_payment');
		if (inFlight >= 0 && listings.slice(inFlight + 1).some((entry) => entry.query.sort === '-updatedAt')) return;
		if (Date.now() > deadline) throw new Error('the activation poll did not read its position within 2 minutes');
		await sleep(200);
	}
}

const sorted = (events: Array<[string, string]>) => [...events].sort((a, b) => a.join().localeCompare(b.join()));

describe('Booking Service Polling Trigger in n8n', () => {
	it('activation starts from now; every kind of change reaches the workflow once, with the right event', async () => {
		simulator.control.clearRequests();
		await n8n.activate(workflowId); // in-memory scheduler: the first poll runs now; durable: within 10 s
		await activationPositionTaken();
		expect(await eventsOf(n8n, workflowId)).toEqual([]);

		// Right after activation: four bookings made, one of them then marked no-show, one cancelled.
		const [one, two, three, four] = [await book(simulator, 0), await book(simulator, 1), await book(simulator, 2), await book(simulator, 3)];
		simulator.control.noShow(two.id);
		simulator.control.cancel(three.id, { by: 'booker' });
		const first = await next(workflowId, [], 4);
		// A booking made and changed between two polls shows its last state, oldest change first.
		expect(sorted(first.flat())).toEqual(
			sorted([
				['booking.created', one.id],
				['booking.created', four.id],
				['booking.no_show', two.id],
				['booking.cancelled', three.id],
			]),
		);

		const before = await eventsOf(n8n, workflowId);
		simulator.control.reschedule(one.id, { start: (await introCallSlots(simulator)).at(-1)!, by: 'host' });
		simulator.control.editNotes(two.id, { notes: 'Called twice' });
		simulator.control.complete(four.id);
		expect(sorted((await next(workflowId, before, 3)).flat())).toEqual(
			sorted([
				['booking.rescheduled', one.id],
				['booking.updated', two.id],
				['booking.completed', four.id],
			]),
		);
		const all = (await eventsOf(n8n, workflowId)).flat();
		expect(new Set(all.map((event) => event.join(' '))).size).toBe(all.length);
		await expectDurableCursor(n8n.connection, workflowId);
	}, 5 * MINUTE);

	it('a restart of n8n between polls loses and repeats nothing', async () => {
		const before = await eventsOf(n8n, workflowId);
		await n8n.stop();
		const made = await book(simulator, 0); // while n8n is down
		n8n = await start();
		expect(await next(workflowId, before, 1)).toEqual([[['booking.created', made.id]]]);
		await sleep(25 * SECOND); // two more polls: nothing repeated after the restart
		expect(countOf(await eventsOf(n8n, workflowId))).toBe(countOf(before) + 1);
	}, 5 * MINUTE);

	it('deactivate and activate: continues from where it was, so changes made while inactive are reported once', async () => {
		await n8n.deactivate(workflowId);
		const before = await eventsOf(n8n, workflowId);
		const made = await book(simulator, 0); // while inactive
		await n8n.activate(workflowId);
		expect(await next(workflowId, before, 1)).toEqual([[['booking.created', made.id]]]);
		await n8n.deactivate(workflowId);
		expect(countOf(await eventsOf(n8n, workflowId))).toBe(countOf(before) + 1);
	}, 5 * MINUTE);

	it('the first poll a minute after activation, n8n restarted before it: every change since activation, once', async () => {
		// Once a minute, at a second 50 s from now: on the durable scheduler nothing polls before then.
		const id = await pollingWorkflow(n8n, simulator, 'first poll later', { times: pollTimes.at(secondFromNow(50)) });
		await n8n.activate(id);
		const beforeRestart = await book(simulator, 4);
		await n8n.stop();
		const whileDown = await book(simulator, 5);
		n8n = await start();
		const afterRestart = await book(simulator, 6);
		const events = await until(n8n, id, (seen) => countOf(seen) >= 3, 2 * MINUTE);
		expect(sorted(events.flat())).toEqual(
			sorted([
				['booking.created', beforeRestart.id],
				['booking.created', whileDown.id],
				['booking.created', afterRestart.id],
			]),
		);
		await n8n.deactivate(id);
	}, 5 * MINUTE);
});
