/**
 * Worker of the polling section (see polling.ts): the Booking Service Polling Trigger draining a backlog of 10,000,
 * 50,000 and 100,000 changed bookings (n8n was down) poll after poll until every change is reported, against the
 * action node's Return All of the same bookings (`updatedSince` the trigger's position) — taking turns in one process —
 * and an idle poll at the steady state.
 */
import type { IDataObject } from 'n8n-workflow';

import { runActionNode, runPoll } from './engine.ts';
import type { BookingServiceCredential } from './engine.ts';
import type { RunMeasurement } from './measure.ts';
import { measureRun } from './measure.ts';
import type { WorkerInput } from './processes.ts';
import { progress, readWorkerInput, writeWorkerResult } from './processes.ts';
import { inTurns } from './stats.ts';

export interface PollingInput extends WorkerInput {
	/** The simulator's control interface: its clock, generated bookings, one change for the idle-poll position. */
	controlUrl: string;
	/** Backlog sizes, ascending; each adds bookings to the last. */
	sizes: number[];
	warmups: number;
}

export interface BacklogResult {
	size: number;
	drain: RunMeasurement[];
	returnAll: RunMeasurement[];
	/** Polls (executions) the drain took, and the most items one of them emitted. */
	polls: number;
	largestPoll: number;
	/** The trigger's static data after the drain (what n8n saves), in bytes of JSON. */
	savedStateBytes: number;
}

export interface PollingResult {
	backlogs: BacklogResult[];
	idle: { poll: RunMeasurement[]; returnAll: RunMeasurement[] };
}

const input = readWorkerInput<PollingInput>();
const collectGarbage = (globalThis as { gc?: () => void }).gc;
const credential: BookingServiceCredential = { apiKey: input.apiKey, baseUrl: input.baseUrl };

async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${input.controlUrl}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`control ${method} ${path} answered ${response.status}`);
	return (await response.json()) as T;
}

// Ten minutes on, so nothing generated before (other sections' bookings) is inside the trigger's overlap.
await control('POST', '/clock/advance', { seconds: 600 });
const { now: position } = await control<{ now: string }>('GET', '/clock');
const atPosition: IDataObject = {
	'node:Booking Service Polling Trigger': {
		poll: { format: 2, workflowId: 'bench-polling', nodeId: 'bench-poller', cursor: position, since: position, known: {} },
	},
};

/** Changes spread as a busy account's might be: 1,000 every ten simulated seconds (100 a second). */
let generated = 0;
async function generateUpTo(size: number): Promise<void> {
	while (generated < size) {
		const count = Math.min(1_000, size - generated);
		await control('POST', '/bookings/generate', { count });
		await control('POST', '/clock/advance', { seconds: 10 });
		generated += count;
	}
}

/**
 * Polls from the position until every change is reported; what n8n would hand to executions is dropped after. With
 * `distinct`, also checks that no booking came twice (outside the measured runs: the id set costs memory).
 */
async function drain(size: number, distinct?: Set<string>) {
	let staticData = atPosition;
	let total = 0;
	let polls = 0;
	let largestPoll = 0;
	const maxPolls = Math.ceil(size / 1_000) * 2 + 10;
	while (total < size) {
		if (++polls > maxPolls) throw new Error(`drain of ${size}: ${total} after ${maxPolls} polls`);
		const result = await runPoll(staticData, credential);
		total += result.items.length;
		for (const item of distinct ? result.items : []) {
			const id = (item.json.booking as { id: string }).id;
			if (distinct?.has(id)) throw new Error(`drain of ${size}: booking ${id} reported twice`);
			distinct?.add(id);
		}
		largestPoll = Math.max(largestPoll, result.items.length);
		staticData = result.staticData;
		// n8n runs each poll on its own; what one left behind is garbage by the next. Collected here, so the peak is one
		// poll's working set (and the state carried between polls), not a heap V8 had no reason to collect yet.
		collectGarbage?.();
	}
	return { total, polls, largestPoll, staticData };
}

const returnAll = async () =>
	await runActionNode(
		{ resource: 'booking', operation: 'getMany', returnAll: true, filters: { updatedSince: position } },
		credential,
	);

const checked = (size: number) => (count: number) => {
	if (count !== size) throw new Error(`expected ${size} items, got ${count}`);
};

const result: PollingResult = { backlogs: [], idle: { poll: [], returnAll: [] } };
const deadline = Date.now() + input.timeLimitMs;
for (const size of input.sizes) {
	await generateUpTo(size);
	const first = await drain(size, new Set());
	if (first.total !== size) throw new Error(`drain of ${size} reported ${first.total}`);
	const backlog: BacklogResult = {
		size,
		drain: [],
		returnAll: [],
		polls: first.polls,
		largestPoll: first.largestPoll,
		savedStateBytes: JSON.stringify(first.staticData).length,
	};
	const jobs = {
		drain: () => measureRun(async () => (await drain(size)).total, checked(size)),
		returnAll: () => measureRun(async () => (await returnAll()).length, checked(size)),
	};
	for (let index = 0; index < input.warmups && size === input.sizes[0]; index++) {
		await jobs.drain();
		await jobs.returnAll();
	}
	await inTurns(['drain', 'returnAll'] as const, { rounds: input.runs, deadline }, () => async (variant) => {
		backlog[variant].push(await jobs[variant]());
	});
	progress(`polling: ${size.toLocaleString('en')} changes drained in ${first.polls} polls, at most ${first.largestPoll} items each`);
	result.backlogs.push(backlog);
}

// The idle poll at the steady state: ten minutes after the backlog one more change moves the position past it; from
// then on a poll with nothing new is one request.
let drained = (await drain(generated)).staticData;
const scanOf = (staticData: IDataObject) =>
	((staticData['node:Booking Service Polling Trigger'] as IDataObject | undefined)?.poll as IDataObject | undefined)?.scan;
for (let poll = 0; scanOf(drained) !== undefined && poll < 10; poll++) drained = (await runPoll(drained, credential)).staticData;
await control('POST', '/clock/advance', { seconds: 600 });
const { items: listed } = await control<{ items: Array<{ id: string; status: string }> }>('GET', '/bookings');
await control('POST', `/bookings/${listed.find((booking) => booking.status === 'confirmed')!.id}/notes`, { notes: 'bench' });
// The first scan after that re-reads the backlog's last two minutes (the overlap) before it reaches the change.
let steady = { items: [] as unknown[], staticData: drained };
let reported = 0;
for (let poll = 0; (reported === 0 || scanOf(steady.staticData) !== undefined) && poll < 30; poll++) {
	steady = await runPoll(steady.staticData, credential);
	reported += steady.items.length;
}
if (reported !== 1) throw new Error(`the polls after one change emitted ${reported} items`);
for (let index = 0; index < input.runs; index++) {
	result.idle.poll.push(await measureRun(async () => (await runPoll(steady.staticData, credential)).items.length, checked(0)));
}
await writeWorkerResult(result);
