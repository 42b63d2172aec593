/**
 * One measured run of deliveries into a real n8n (sections 4 and 7): send a batch with a bounded number in flight,
 * wait for the executions, optionally send part of it again (a retried delivery must start nothing), and count:
 * throughput from n8n's own execution records, executions after a pause, and, where asked, each event id once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { Agent, request } from 'undici';

import type { N8nInstance } from '../n8n/instance.ts';
import type { Delivery } from './deliveries.ts';
import { processCpuMs } from './process-cpu.ts';
import { countExecutions, executionsAfter, lastExecutionId, waitForExecutionCount } from './n8n.ts';
import type { Row } from './report.ts';
import { infoRow, targetRow } from './report.ts';
import { summarize } from './stats.ts';

/** Deliveries in flight at once, like a service with a few delivery workers. */
export const CONCURRENCY = 8;
/** Part of each run sent again afterwards, where the target drops repeats. */
const RESEND_SHARE = 0.1;
const SEND_LIMIT_MS = 60_000;
const EXECUTIONS_LIMIT_MS = 90_000;
export const SETTLE_MS = 1_000;

export interface Target {
	workflowId: string;
	url: string;
	/** The start node's name, whose items carry `eventId` (checked when set). */
	eventIdsFrom?: string;
	/** Whether repeats must be acknowledged without a run (and a share of each run is resent to prove it). */
	dropsRepeats?: boolean;
	/** The n8n process that receives the deliveries, whose CPU per delivery is measured when set. */
	cpuPid?: number;
}

/** Sends every delivery with at most CONCURRENCY in flight; stops sending after SEND_LIMIT_MS. */
async function sendAll(url: string, deliveries: Delivery[], dispatcher: Agent) {
	const statuses: number[] = [];
	const answers: string[] = [];
	let next = 0;
	const started = Date.now();
	const worker = async () => {
		while (next < deliveries.length && Date.now() - started < SEND_LIMIT_MS) {
			const delivery = deliveries[next++];
			const response = await request(url, { method: 'POST', headers: delivery.headers, body: delivery.body, dispatcher });
			statuses.push(response.statusCode);
			answers.push(await response.body.text());
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, worker));
	return { statuses, answers, sent: statuses.length };
}

export interface RunOutcome {
	deliveries: number;
	acknowledged: number;
	/** Deliveries per second that became finished executions. */
	executionsPerSecond: number;
	/** Deliveries per second acknowledged (answered 2xx). */
	acknowledgedPerSecond: number;
	executions: number;
	executionsAfterPause: number;
	failedExecutions: number;
	resent: number;
	resentAcknowledgedWithoutRun: number;
	eventIdsMissing: number;
	eventIdsDoubled: number;
	/**
	 * CPU milliseconds (all threads) the receiving process used from the first send until every execution had
	 * finished, per delivery; resends come after and are not in it. Undefined without `cpuPid` or /proc.
	 */
	cpuMsPerDelivery?: number;
	/**
	 * The same span on the monotonic clock in µs (process.hrtime, the clock V8 stamps CPU profiles with), so
	 * profile-windows.ts can attribute a profile's samples to the variant that was running.
	 */
	monotonicUs: { start: number; end: number };
}

export async function runOnce(
	client: N8nInstance,
	target: Target,
	deliveries: Delivery[],
	dispatcher: Agent,
): Promise<RunOutcome> {
	const checkEventIds = target.eventIdsFrom !== undefined;
	const before = await countExecutions(client, target.workflowId, true);
	const lastIdBefore = await lastExecutionId(client, target.workflowId);
	const cpuBefore = target.cpuPid === undefined ? undefined : processCpuMs(target.cpuPid);
	const monotonicStart = monotonicUs();
	const firstSend = Date.now();
	const sent = await sendAll(target.url, deliveries, dispatcher);
	const allAcknowledged = Date.now();
	const acknowledged = sent.statuses.filter((status) => status >= 200 && status < 300).length;
	await waitForExecutionCount(client, target.workflowId, before + deliveries.length, EXECUTIONS_LIMIT_MS);
	const cpuAfter = target.cpuPid === undefined ? undefined : processCpuMs(target.cpuPid);
	const monotonicEnd = monotonicUs();

	let resent = 0;
	let resentAcknowledgedWithoutRun = 0;
	if (target.dropsRepeats === true) {
		const again = deliveries.slice(0, Math.ceil(deliveries.length * RESEND_SHARE));
		const repeat = await sendAll(target.url, again, dispatcher);
		resent = repeat.sent;
		resentAcknowledgedWithoutRun = repeat.answers.filter(
			(answer, index) => repeat.statuses[index] === 200 && answer.includes('already received'),
		).length;
	}
	await sleep(SETTLE_MS);
	const executionsAfterPause = (await countExecutions(client, target.workflowId, true)) - before;
	const executions = await executionsAfter(client, target.workflowId, lastIdBefore, checkEventIds);
	const lastStop = Math.max(...executions.map((execution) => Date.parse(execution.stoppedAt ?? '') || 0));

	let eventIdsMissing = 0;
	let eventIdsDoubled = 0;
	if (checkEventIds) {
		const seen = new Map<string, number>();
		for (const execution of executions) {
			const runData = (execution.data as { resultData?: { runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: { eventId?: string } }>> } }>> } })
				?.resultData?.runData?.[target.eventIdsFrom!];
			for (const item of runData?.[0]?.data?.main?.[0] ?? []) {
				const id = String(item.json.eventId);
				seen.set(id, (seen.get(id) ?? 0) + 1);
			}
		}
		const sentIds = new Set(deliveries.map((delivery) => delivery.eventId));
		eventIdsMissing = [...sentIds].filter((id) => !seen.has(id)).length;
		eventIdsDoubled = [...seen].filter(([id, times]) => times > 1 || !sentIds.has(id)).length;
	}
	return {
		deliveries: deliveries.length,
		acknowledged,
		executionsPerSecond: executions.length / ((lastStop - firstSend) / 1000),
		acknowledgedPerSecond: acknowledged / ((allAcknowledged - firstSend) / 1000),
		executions: executions.length,
		executionsAfterPause,
		failedExecutions: executions.filter((execution) => execution.status !== 'success').length,
		resent,
		resentAcknowledgedWithoutRun,
		eventIdsMissing,
		eventIdsDoubled,
		monotonicUs: { start: monotonicStart, end: monotonicEnd },
		...(cpuBefore === undefined || cpuAfter === undefined
			? {}
			: { cpuMsPerDelivery: (cpuAfter - cpuBefore) / deliveries.length }),
	};
}


type Counted = Exclude<keyof RunOutcome, 'executionsPerSecond' | 'acknowledgedPerSecond' | 'cpuMsPerDelivery' | 'monotonicUs'>;

function monotonicUs(): number {
	return Number(process.hrtime.bigint() / 1000n);
}

/** The counts of the measured runs, summed (for the checks). */
export function totals(runs: RunOutcome[]): Record<Counted, number> {
	const sum = (field: Counted) => runs.reduce((total, run) => total + run[field], 0);
	return {
		deliveries: sum('deliveries'),
		acknowledged: sum('acknowledged'),
		executions: sum('executions'),
		executionsAfterPause: sum('executionsAfterPause'),
		failedExecutions: sum('failedExecutions'),
		resent: sum('resent'),
		resentAcknowledgedWithoutRun: sum('resentAcknowledgedWithoutRun'),
		eventIdsMissing: sum('eventIdsMissing'),
		eventIdsDoubled: sum('eventIdsDoubled'),
	};
}

/** A report row comparing a per-run rate (higher is better): medians and their ratio, held to `atLeast` when given. */
export function throughputRow(
	section: number,
	measure: string,
	rate: 'executionsPerSecond' | 'acknowledgedPerSecond',
	ours: RunOutcome[],
	baseline: RunOutcome[],
	atLeast?: number,
): Row {
	const perRun = (runs: RunOutcome[]) => summarize(runs.map((run) => run[rate]));
	return atLeast === undefined
		? infoRow(section, measure, perRun(ours), perRun(baseline), '/s')
		: targetRow(section, measure, perRun(ours), perRun(baseline), '/s', { atLeast });
}

/** A report row comparing the receiving process's CPU per delivery (lower is better), where both runs measured it. */
export function cpuRow(section: number, measure: string, ours: RunOutcome[], baseline: RunOutcome[]): Row | undefined {
	const perRun = (runs: RunOutcome[]) => runs.flatMap((run) => (run.cpuMsPerDelivery === undefined ? [] : [run.cpuMsPerDelivery]));
	const [oursCpu, baselineCpu] = [perRun(ours), perRun(baseline)];
	if (oursCpu.length === 0 || baselineCpu.length === 0) return undefined;
	return infoRow(section, measure, summarize(oursCpu), summarize(baselineCpu), 'ms');
}
