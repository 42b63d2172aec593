// Helpers of the queue-mode suite: trigger workflows, signed deliveries made from a subscription's secret (the
// simulator shows it), and counting executions and what ran after Remove Duplicates.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Execution, N8nClient, WorkflowInput } from '../n8n/client.ts';
import type { Simulator } from '../simulator/index.ts';
import { signFromScratch, syntheticEvent } from '../trigger/support.ts';

export const PACKAGE = 'n8n-nodes-booking-service';
export const TRIGGER = 'Booking Service Trigger';
export const ONCE_PER_EVENT = 'Once per event';
export const AFTER = 'After Remove Duplicates';
export const EVENTS = ['booking.cancelled', 'booking.created', 'booking.no_show', 'booking.rescheduled'];
/** How long executions may take to appear and finish; a bound, not an expectation. */
export const EXECUTIONS_LIMIT_MS = 60_000;

export interface TriggerWorkflow {
	id: string;
	/** The Production URL n8n builds: the proxy's address + `webhook/<webhookId>/webhook`. */
	productionUrl: string;
	/** The same path on one webhook process, bypassing the proxy. */
	pathOnProcess(processUrl: string): string;
}

/**
 * `Booking Service Trigger → Remove Duplicates (eventId, n8n's database) → No Operation`: the docs' recommended
 * durable guard, so each test can count both what the trigger started and what got past the guard.
 */
export async function createTriggerWorkflow(
	client: N8nClient,
	credential: { id: string; name: string },
	name: string,
): Promise<TriggerWorkflow> {
	const webhookId = randomUUID();
	const workflow: WorkflowInput = {
		name,
		nodes: [
			{
				name: TRIGGER,
				type: `${PACKAGE}.bookingServiceTrigger`,
				typeVersion: 1.1,
				webhookId,
				position: [0, 0],
				parameters: { events: EVENTS, options: {} },
				credentials: { bookingServiceApi: credential },
			},
			{
				name: ONCE_PER_EVENT,
				type: 'n8n-nodes-base.removeDuplicates',
				typeVersion: 2,
				position: [240, 0],
				parameters: {
					operation: 'removeItemsSeenInPreviousExecutions',
					logic: 'removeItemsWithAlreadySeenKeyValues',
					dedupeValue: '={{ $json.eventId }}',
					options: {},
				},
			},
			{ name: AFTER, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [480, 0], parameters: {} },
		],
		connections: {
			[TRIGGER]: { main: [[{ node: ONCE_PER_EVENT, type: 'main', index: 0 }]] },
			[ONCE_PER_EVENT]: { main: [[{ node: AFTER, type: 'main', index: 0 }]] },
		},
	};
	const { id } = await client.createWorkflow(workflow);
	const path = `webhook/${webhookId}/webhook`;
	return { id, productionUrl: `${client.webhookUrl}${path}`, pathOnProcess: (processUrl) => `${processUrl}${path}` };
}

/** The simulator's subscription for a URL (exactly one expected). */
export function subscriptionFor(simulator: Simulator, url: string): { id: string; secret: string } {
	const matching = simulator.control.webhooks().filter((subscription) => subscription.url === url);
	if (matching.length !== 1) throw new Error(`expected one subscription for ${url}, found ${matching.length}`);
	return matching[0];
}

/** A delivery body for `eventId` about a real booking, and its signature under `secret` (as the service signs). */
export function signedDelivery(secret: string, booking: unknown, eventId: string, type = 'booking.created') {
	const body = syntheticEvent(type, booking, eventId);
	return { body, headers: { 'content-type': 'application/json', 'service-signature': signFromScratch(secret, body) } };
}

export async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
	const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
	return { status: response.status, text: await response.text() };
}

/** Posts until the answer is not 404 (bounded: 15 s). */
export async function postOnce404Passes(url: string, delivery: { body: string; headers: Record<string, string> }) {
	const deadline = Date.now() + 15_000;
	for (;;) {
		const answer = await post(url, delivery);
		if (answer.status !== 404 || Date.now() > deadline) return answer;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/** A new event id in the service's format. */
export const eventId = () => `evt_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/** Finished executions once at least `expected` exist (bounded wait), all asserted successful by the caller. */
export async function executionsOf(client: N8nClient, workflowId: string, expected: number): Promise<Execution[]> {
	if (expected > 0) await client.waitForExecutions(workflowId, expected, EXECUTIONS_LIMIT_MS);
	return await client.listExecutions(workflowId);
}

/**
 * Every execution of the workflow once each of `eventIds` has a finished one (bounded wait). A count taken when the
 * deliveries are answered can miss the last: n8n 1.x answers a trigger "on received" before it records the execution.
 */
export async function executionsOfEvents(client: N8nClient, workflowId: string, eventIds: Iterable<string>): Promise<Execution[]> {
	const wanted = new Set(eventIds);
	const deadline = Date.now() + EXECUTIONS_LIMIT_MS;
	for (;;) {
		const executions = await client.listExecutions(workflowId);
		// A queued execution holds the trigger's item only in its stack: its event shows once it has run.
		const ran = new Set(executions.filter((execution) => execution.stoppedAt).map(eventIdOf));
		const missing = [...wanted].filter((id) => !ran.has(id));
		if (missing.length === 0) return executions;
		if (Date.now() > deadline) {
			const unfinished = executions.filter((execution) => !execution.stoppedAt).length;
			throw new Error(
				`workflow ${workflowId}: ${missing.length} of ${wanted.size} acknowledged events have no finished execution after ${EXECUTIONS_LIMIT_MS} ms (${missing.slice(0, 3).join(', ')}); ${unfinished} executions recorded but unfinished`,
			);
		}
		await sleep(200);
	}
}

export function eventIdOf(execution: Execution): string {
	const items = execution.data?.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? [];
	return String(items[0]?.json.eventId);
}

/** Event ids that got past Remove Duplicates, one entry per execution that ran the node after it. */
export function eventIdsPastTheGuard(executions: Execution[]): string[] {
	return executions
		.filter((execution) => (execution.data?.resultData.runData[AFTER]?.[0]?.data?.main[0] ?? []).length > 0)
		.map(eventIdOf);
}

/** Execution ids a worker's log says it started. */
export function executionsStartedBy(logFile: string): Set<string> {
	return new Set([...readFileSync(logFile, 'utf8').matchAll(/Worker started execution (\d+)/g)].map((match) => match[1]));
}

/** Counts per value, e.g. how many executions each event id started. */
export function tally(values: string[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

/** Requests each webhook process answered since `before`, summed over statuses. */
export function answeredSince(before: Array<Record<number, number>>, now: Array<Record<number, number>>): number[] {
	const total = (counts: Record<number, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);
	return now.map((counts, index) => total(counts) - total(before[index] ?? {}));
}
