/**
 * Worker of the polling section (see polling.ts): one poll of the Booking Service Polling Trigger over 10,000 changed
 * bookings (n8n was down: the whole backlog in one poll), an idle poll (nothing changed), and the action node's
 * Return All of the same bookings as the baseline — taking turns in one process.
 */
import type { IDataObject } from 'n8n-workflow';

import { runActionNode, runPoll } from './engine.ts';
import type { BookingServiceCredential } from './engine.ts';
import type { RunMeasurement } from './measure.ts';
import { measureRun } from './measure.ts';
import { progress, readWorkerInput, writeWorkerResult } from './processes.ts';
import { rotate } from './stats.ts';

export interface PollingInput {
	baseUrl: string;
	/** The simulator's control interface: moves its clock and changes one booking for the idle-poll position. */
	controlUrl: string;
	apiKey: string;
	expectedItems: number;
	warmups: number;
	runs: number;
	timeLimitMs: number;
}

export const POLLING_VARIANTS = ['backlogPoll', 'idlePoll', 'returnAll'] as const;
export type PollingVariant = (typeof POLLING_VARIANTS)[number];

export interface PollingResult {
	runs: Record<PollingVariant, RunMeasurement[]>;
	/** The size of the trigger's static data after the backlog poll (what n8n saves), in bytes of JSON. */
	savedStateBytes: number;
}

const input = readWorkerInput<PollingInput>();
const credential: BookingServiceCredential = { apiKey: input.apiKey, baseUrl: input.baseUrl };

/** A trigger positioned before every booking: the next poll reads the whole backlog. */
const beforeEverything: IDataObject = {
	'node:Booking Service Polling Trigger': {
		poll: {
			format: 1,
			workflowId: 'bench-polling',
			nodeId: 'bench-poller',
			cursor: '2000-01-01T00:00:00.000Z',
			since: '2000-01-01T00:00:00.000Z',
			snapshots: {},
		},
	},
};
const afterBacklog = (await runPoll(beforeEverything, credential)).staticData;
const savedStateBytes = JSON.stringify(afterBacklog).length;

/**
 * The steady state an idle poll sees: the generated backlog all changed in one instant, so right after it every poll
 * re-reads the whole burst inside the two-minute overlap. Ten minutes later one more change moves the position past
 * it; from then on a poll with nothing new is one request.
 */
async function control(method: string, path: string, body?: unknown): Promise<unknown> {
	const response = await fetch(`${input.controlUrl}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`control ${method} ${path} answered ${response.status}`);
	return await response.json();
}
await control('POST', '/clock/advance', { seconds: 600 });
const { items: listed } = (await control('GET', '/bookings')) as { items: Array<{ id: string; status: string }> };
await control('POST', `/bookings/${listed.find((booking) => booking.status === 'confirmed')!.id}/notes`, { notes: 'bench' });
const steady = await runPoll(afterBacklog, credential);
if (steady.items.length !== 1) throw new Error(`the poll after one change emitted ${steady.items.length} items`);
const afterOneChange = steady.staticData;

const jobs: Record<PollingVariant, () => Promise<unknown[]>> = {
	backlogPoll: async () => (await runPoll(beforeEverything, credential)).items,
	idlePoll: async () => (await runPoll(afterOneChange, credential)).items,
	returnAll: async () => await runActionNode({ resource: 'booking', operation: 'getMany', returnAll: true }, credential),
};

/** Every backlog poll reports every change once, an idle poll none, Return All every booking. */
const expectedItems: Record<PollingVariant, number> = {
	backlogPoll: input.expectedItems,
	idlePoll: 0,
	returnAll: input.expectedItems,
};

const measure = (variant: PollingVariant) =>
	measureRun(jobs[variant], (items) => {
		if (items.length !== expectedItems[variant]) {
			throw new Error(`${variant} gave ${items.length} items, expected ${expectedItems[variant]}`);
		}
	});

for (let index = 0; index < input.warmups; index++) {
	for (const variant of POLLING_VARIANTS) await measure(variant);
}
progress(`polling: warmed up (${input.warmups} of each); ${input.runs} measured runs of each follow`);
const result: PollingResult = { runs: { backlogPoll: [], idlePoll: [], returnAll: [] }, savedStateBytes };
const started = Date.now();
for (let index = 0; index < input.runs && Date.now() - started < input.timeLimitMs; index++) {
	for (const variant of rotate(index, POLLING_VARIANTS)) result.runs[variant].push(await measure(variant));
}
await writeWorkerResult(result);
