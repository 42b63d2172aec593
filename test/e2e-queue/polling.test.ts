// The polling trigger in n8n's queue mode, on the poll scheduler BOOKING_N8N_SCHEDULER names: main polls (on the
// durable scheduler: claims each poll as a task from Postgres and commits the node's cursor with the execution it
// enqueues), the worker runs the executions. Each change once, in order: changes made right after activation and
// before the first poll, a restart of main between polls (changes made while it is down), a failing poll, a burst,
// and deactivation with changes made meanwhile. Main and one worker only: webhook processes play no part here.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N8N_SCHEDULER, N8N_VERSION, REPO_ROOT } from '../n8n/install.ts';
import { startQueueN8n, type QueueN8n } from '../n8n/queue.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { book, countOf, eventsOf, MINUTE, pollingWorkflow, SECOND, sleep, until } from '../e2e/polling-support.ts';
import { executionsStartedBy } from './support.ts';

let queue: QueueN8n;
let simulator: Simulator;
let workflowId: string;

function say(message: string): void {
	process.stderr.write(`[queue polling e2e] ${message}\n`);
}

beforeAll(async () => {
	simulator = await startSimulator({});
	queue = await startQueueN8n({
		packageDir: REPO_ROOT,
		dataDir: join(REPO_ROOT, '.cache', 'e2e-queue', `${N8N_VERSION}-polling-${N8N_SCHEDULER}`),
		webhookProcesses: 0,
	});
	say(`n8n ${N8N_VERSION} in queue mode (${N8N_SCHEDULER} poll scheduler) ready in ${queue.startMs} ms`);
	workflowId = await pollingWorkflow(queue.main, simulator, 'queue mode');
});

afterAll(async () => {
	await queue?.main.deactivate(workflowId).catch(() => undefined);
	await queue?.stop();
	await simulator?.close();
});

const ids = (events: Array<Array<[string, string]>>) => events.flat().map(([, id]) => id);

describe('Booking Service Polling Trigger in queue mode', () => {
	it('main polls, the worker runs each change once: right after activation, across a restart of main, a failing poll, a burst, deactivation', async () => {
		await queue.main.activate(workflowId);
		const expected: string[] = [];
		const arrived = async (count: number) =>
			await until(queue.main, workflowId, (events) => countOf(events) >= count, 2 * MINUTE);

		// Right after activation, before the first scheduled poll.
		expected.push((await book(simulator, 0)).id, (await book(simulator, 1)).id);
		await arrived(2);

		// Main restarts; a booking is made while it is down.
		await queue.restartMain();
		expected.push((await book(simulator, 2)).id);
		await arrived(3);

		// A poll fails (HTTP 500), then a burst of 300.
		simulator.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'status', status: 500 });
		while (simulator.control.faults().length > 0) await sleep(500);
		expected.push(...simulator.control.generateBookings({ count: 300 }).ids);
		await arrived(303);

		// Deactivated; a booking is made meanwhile; activated again.
		await queue.main.deactivate(workflowId);
		expected.push((await book(simulator, 3)).id);
		await queue.main.activate(workflowId);
		const events = await arrived(304);
		await sleep(25 * SECOND); // two more polls: nothing again

		const all = await eventsOf(queue.main, workflowId);
		expect(all).toEqual(events);
		expect(ids(all)).toEqual(expected.slice(0, 3).concat(ids(all).slice(3, 303), expected[303]));
		expect(ids(all).slice(3, 303).sort()).toEqual(expected.slice(3, 303).sort());
		// Every execution that reported changes ran on the worker; the failed poll is a failed execution main recorded.
		const executions = (await queue.main.listExecutions(workflowId)).filter((execution) => execution.mode !== 'manual');
		const onWorker = executionsStartedBy(queue.worker.logFile);
		const reporting = executions.filter((execution) => execution.status !== 'error');
		expect(reporting.length).toBeGreaterThanOrEqual(4);
		expect(reporting.filter((execution) => !onWorker.has(execution.id))).toEqual([]);
		expect(executions.filter((execution) => execution.status === 'error').length).toBeGreaterThanOrEqual(1);
		if (N8N_SCHEDULER === 'durable') {
			const row = queue.services.sql(`SELECT length(cursor::text) FROM poller_state WHERE "workflowId" = '${workflowId}'`);
			say(`cursor row: ${row} bytes`);
			expect(Number(row)).toBeGreaterThan(0);
		}
	}, 10 * MINUTE);
});
