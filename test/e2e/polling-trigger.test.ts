// The Booking Service Polling Trigger in a real n8n, with its own n8n process so it can be restarted: activation
// starts from now, each kind of change made between two polls reaches the workflow once with the right event, a
// restart of n8n between polls loses and repeats nothing, and deactivate/activate continues where it was. n8n polls
// at most once a minute (it refuses shorter intervals), so changes are made in batches between two polls.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../n8n/install.ts';
import { startN8n, type N8nInstance } from '../n8n/instance.ts';
import type { Execution } from '../n8n/client.ts';
import { startSimulator, type Booking, type Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE, PACKAGE } from './n8n.ts';
import { introCallSlots, service } from './service.ts';

const POLLING_NODE = `${PACKAGE}.bookingServicePollingTrigger`;
const TRIGGER = 'Booking Service Polling Trigger';
/** n8n polls once a minute at most; a change shows within two polls, and this bounds the wait. */
const POLL_WAIT_MS = 150_000;

let simulator: Simulator;
let userFolder: string;
let n8n: N8nInstance;
let credential: { id: string; name: string };
let workflowId: string;

async function start(): Promise<N8nInstance> {
	return await startN8n({ packageDir: REPO_ROOT, userFolder, logFile: join(userFolder, 'n8n.log') });
}

beforeAll(async () => {
	simulator = await startSimulator({});
	userFolder = mkdtempSync(join(tmpdir(), 'n8n-polling-'));
	n8n = await start();
	credential = await n8n.createCredential({
		name: 'Booking Service (polling test)',
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readOnly, baseUrl: simulator.baseUrl },
	});
	const { id } = await n8n.createWorkflow({
		name: 'polling e2e',
		nodes: [
			{
				name: TRIGGER,
				type: POLLING_NODE,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					events: ['*'],
					options: {},
				},
				credentials: { [CREDENTIAL_TYPE]: credential },
			},
			{ name: 'No Operation', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] } },
	});
	workflowId = id;
}, 180_000);

afterAll(async () => {
	await n8n?.stop();
	await simulator?.close();
	if (userFolder) rmSync(userFolder, { recursive: true, force: true });
});

/** The events (type and booking id) each finished execution carried, oldest execution first. */
async function eventsByExecution(): Promise<Array<Array<[string, string]>>> {
	const executions: Execution[] = (await n8n.listExecutions(workflowId)).filter((execution) => execution.stoppedAt);
	return executions.reverse().map((execution) =>
		(execution.data?.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? []).map((item) => [
			String(item.json.eventType),
			String((item.json.booking as Booking).id),
		]),
	);
}

/** Waits until `count` executions exist in all; returns the events of the new ones. */
async function nextExecutions(before: number, count = 1): Promise<Array<Array<[string, string]>>> {
	await n8n.waitForExecutions(workflowId, before + count, POLL_WAIT_MS);
	return (await eventsByExecution()).slice(before);
}

const freeSlots = async (): Promise<string[]> => await introCallSlots(simulator);

async function book(index: number): Promise<Booking> {
	return await service<Booking>(simulator, 'POST', '/bookings', {
		eventTypeId: simulator.control.eventType('intro-call').id,
		start: (await freeSlots())[index],
		booker: { name: `Poller ${index}`, email: `poller.${randomUUID()}@example.com`, timezone: 'UTC' },
	});
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Booking Service Polling Trigger in n8n', () => {
	it('activation starts from now; every kind of change reaches the workflow once, with the right event', async () => {
		await n8n.activate(workflowId); // the first poll runs now: nothing of the seeded history
		expect(await eventsByExecution()).toEqual([]);

		// Between two polls: four bookings made, one of them then marked no-show, one cancelled.
		const [one, two, three, four] = [await book(0), await book(1), await book(2), await book(3)];
		simulator.control.noShow(two.id);
		simulator.control.cancel(three.id, { by: 'booker' });
		const [batch] = await nextExecutions(0);
		// A booking made and changed between two polls shows its last state. (Oldest change first; changes made in
		// the same millisecond, as here, come in booking id order.)
		const sorted = (events: Array<[string, string]>) => [...events].sort((a, b) => a.join().localeCompare(b.join()));
		expect(sorted(batch)).toEqual(
			sorted([
				['booking.created', one.id],
				['booking.created', four.id],
				['booking.no_show', two.id],
				['booking.cancelled', three.id],
			]),
		);

		// Between the next two: a reschedule, a change with no event of its own, a completion.
		simulator.control.reschedule(one.id, { start: (await freeSlots()).at(-1)!, by: 'host' });
		simulator.control.editNotes(two.id, { notes: 'Called twice' });
		simulator.control.complete(four.id);
		const [second] = await nextExecutions(1);
		expect(sorted(second)).toEqual(
			sorted([
				['booking.rescheduled', one.id],
				['booking.updated', two.id],
				['booking.completed', four.id],
			]),
		);
		const all = (await eventsByExecution()).flat();
		expect(new Set(all.map((event) => event.join(' '))).size).toBe(all.length);
	}, 420_000);

	it('a restart of n8n between polls loses and repeats nothing', async () => {
		const before = (await eventsByExecution()).length;
		await n8n.stop();
		const made = await book(0); // while n8n is down
		n8n = await start(); // n8n re-activates the workflow and polls at once
		const events = await nextExecutions(before);
		expect(events).toEqual([[['booking.created', made.id]]]);
		await sleep(70_000); // one more poll: nothing repeated after the restart
		expect((await eventsByExecution()).length).toBe(before + 1);
	}, 300_000);

	it('deactivate and activate: continues from where it was, so changes made while inactive are reported once', async () => {
		await n8n.deactivate(workflowId);
		const before = (await eventsByExecution()).length;
		const made = await book(0); // while inactive
		await n8n.activate(workflowId);
		expect(await nextExecutions(before)).toEqual([[['booking.created', made.id]]]);
		await n8n.deactivate(workflowId);
		expect((await eventsByExecution()).length).toBe(before + 1);
	}, 300_000);
});
