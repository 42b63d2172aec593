/**
 * 4. Deliveries through real n8n: signed 5 KB deliveries per second that the Booking Service Trigger turns into
 * executions, against n8n's plain Webhook node in the same process, with the executions counted: none lost, none
 * doubled.
 *
 * Both workflows are active at once. The bench plays the service: it sends the same deliveries (same bytes, same
 * signature header) to both, a fixed number per run with a bounded number in flight, one workflow after the other.
 * Throughput = deliveries ÷ (last execution's stoppedAt − first send), with stoppedAt from n8n's own execution
 * records; the executions are counted until they reach the number sent, then again after a pause, which must not
 * change it. For the trigger, part of each run is sent again afterwards (a retried delivery): those must be
 * acknowledged without an execution, and every execution must carry one of the sent event ids, each once.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { Agent, request } from 'undici';

import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { Delivery } from './deliveries.ts';
import { deliveryTemplate, makeDeliveries, sampleBooking } from './deliveries.ts';
import type { N8nBench } from './n8n.ts';
import { countExecutions, executionsAfter, lastExecutionId, postWhenRegistered, waitForExecutionCount } from './n8n.ts';
import { progress } from './processes.ts';
import type { Check, SectionReport } from './report.ts';
import { formatRatio, formatSummary, ratioOfMedians, rotate, summarize } from './stats.ts';

const VARIANTS = ['trigger', 'webhookNode'] as const;
type Variant = (typeof VARIANTS)[number];
/** Deliveries in flight at once, like a service with a few delivery workers. */
const CONCURRENCY = 8;
/** Part of each trigger run sent again afterwards. */
const RESEND_SHARE = 0.1;
const SEND_LIMIT_MS = 60_000;
const EXECUTIONS_LIMIT_MS = 90_000;
const SETTLE_MS = 1_000;

interface Target {
	workflowId: string;
	url: string;
}

async function activateWorkflows(n8n: N8nBench): Promise<Record<Variant, Target>> {
	const triggerWebhookId = randomUUID();
	const trigger = await n8n.client.createWorkflow({
		name: 'bench: Booking Service Trigger',
		nodes: [
			{
				name: 'Booking Service Trigger',
				type: 'n8n-nodes-booking-service.bookingServiceTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: triggerWebhookId,
				parameters: { events: ['*'], options: {} },
				credentials: { bookingServiceApi: n8n.bookingCredential },
			},
		],
		connections: {},
	});
	const path = `bench-plain-${randomUUID()}`;
	const plain = await n8n.client.createWorkflow({
		name: 'bench: plain Webhook',
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2.1,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
		],
		connections: {},
	});
	await n8n.client.activate(trigger.id);
	await n8n.client.activate(plain.id);
	return {
		trigger: { workflowId: trigger.id, url: `${n8n.client.webhookUrl}webhook/${triggerWebhookId}/webhook` },
		webhookNode: { workflowId: plain.id, url: `${n8n.client.webhookUrl}webhook/${path}` },
	};
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

interface RunOutcome {
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
}

async function runOnce(
	n8n: N8nBench,
	variant: Variant,
	target: Target,
	deliveries: Delivery[],
	dispatcher: Agent,
	checkEventIds: boolean,
): Promise<RunOutcome> {
	const { client } = n8n;
	const before = await countExecutions(client, target.workflowId, true);
	const lastIdBefore = await lastExecutionId(client, target.workflowId);
	const firstSend = Date.now();
	const sent = await sendAll(target.url, deliveries, dispatcher);
	const allAcknowledged = Date.now();
	const acknowledged = sent.statuses.filter((status) => status >= 200 && status < 300).length;
	await waitForExecutionCount(client, target.workflowId, before + deliveries.length, EXECUTIONS_LIMIT_MS);

	let resent = 0;
	let resentAcknowledgedWithoutRun = 0;
	if (variant === 'trigger') {
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
				?.resultData?.runData?.['Booking Service Trigger'];
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
	};
}

export const deliveriesSection: Section = {
	id: 'deliveries',
	title: 'Signed deliveries through real n8n: trigger vs plain Webhook node',
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		const n8n = await context.n8n();
		// On 2 busy cores n8n 2.41 turns 5–20 deliveries a second into executions: 150 a run keeps this section near 3 min.
		const counts = runCounts(context, { warmups: 1, runs: 4 }, { warmups: 1, runs: 3 });
		const perRun = context.quick ? 100 : 150;
		const targets = await activateWorkflows(n8n);
		const dispatcher = new Agent({ connections: CONCURRENCY });
		try {
			const { items } = await sim.control<{ items: Array<{ url: string; secret: string; status: string }> }>('GET', '/webhooks');
			const subscription = items.find((item) => item.url === targets.trigger.url && item.status === 'active');
			if (subscription === undefined) throw new Error(`the trigger did not subscribe ${targets.trigger.url} on the simulator`);
			const template = deliveryTemplate(await sampleBooking(sim.control));

			// Both webhooks answer before the first run (n8n registers them a moment after publishing).
			for (const variant of VARIANTS) {
				const [probe] = makeDeliveries(template, subscription.secret, 1);
				const answer = await postWhenRegistered(targets[variant].url, probe.body, probe.headers);
				if (answer.status !== 200) throw new Error(`${variant} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
			}

			progress(`deliveries: ${counts.warmups} warm-up + ${counts.runs} runs of ${perRun} deliveries to each workflow, ${CONCURRENCY} in flight`);
			const outcomes: Record<Variant, RunOutcome[]> = { trigger: [], webhookNode: [] };
			for (let index = 0; index < counts.warmups + counts.runs && Date.now() < context.deadline; index++) {
				// New event ids every run (the trigger drops ids it has seen); both workflows get the same bytes.
				const deliveries = makeDeliveries(template, subscription.secret, perRun);
				for (const variant of rotate(index, VARIANTS)) {
					const outcome = await runOnce(n8n, variant, targets[variant], deliveries, dispatcher, variant === 'trigger');
					if (index >= counts.warmups) outcomes[variant].push(outcome);
				}
			}

			const checks: Check[] = [];
			for (const variant of VARIANTS) {
				const runs = outcomes[variant];
				const sent = runs.reduce((sum, run) => sum + run.deliveries, 0);
				const acknowledged = runs.reduce((sum, run) => sum + run.acknowledged, 0);
				const executions = runs.reduce((sum, run) => sum + run.executions, 0);
				const afterPause = runs.reduce((sum, run) => sum + run.executionsAfterPause, 0);
				const failed = runs.reduce((sum, run) => sum + run.failedExecutions, 0);
				checks.push({
					what: `${variant}: one execution per delivery, none lost, none doubled`,
					passed: acknowledged === sent && executions === sent && afterPause === sent && failed === 0,
					detail: `${sent} sent, ${acknowledged} acknowledged, ${executions} executions (${afterPause} after a ${SETTLE_MS / 1000} s pause), ${failed} not successful`,
				});
			}
			const trigger = outcomes.trigger;
			const resent = trigger.reduce((sum, run) => sum + run.resent, 0);
			const skipped = trigger.reduce((sum, run) => sum + run.resentAcknowledgedWithoutRun, 0);
			checks.push({
				what: 'trigger: deliveries sent again are acknowledged without an execution',
				passed: resent === skipped && resent > 0,
				detail: `${skipped} of ${resent} resent deliveries answered 200 "already received"; the execution counts above include the time after them`,
			});
			const missing = trigger.reduce((sum, run) => sum + run.eventIdsMissing, 0);
			const doubled = trigger.reduce((sum, run) => sum + run.eventIdsDoubled, 0);
			checks.push({
				what: 'trigger: each sent event id is in exactly one execution',
				passed: missing === 0 && doubled === 0,
				detail: `${missing} missing, ${doubled} doubled or unknown`,
			});

			const rate = (variant: Variant) => summarize(outcomes[variant].map((run) => run.executionsPerSecond));
			const ackRate = (variant: Variant) => summarize(outcomes[variant].map((run) => run.acknowledgedPerSecond));
			return {
				id: this.id,
				title: this.title,
				rows: [
					{
						section: 4,
						measure: `Signed 5 KB deliveries through real n8n turned into executions: Booking Service Trigger vs plain Webhook node (${perRun} per run, ${CONCURRENCY} in flight)`,
						ours: formatSummary(rate('trigger'), '/s'),
						baseline: formatSummary(rate('webhookNode'), '/s'),
						ratio: formatRatio(ratioOfMedians(rate('trigger'), rate('webhookNode'))),
						target: '—',
						verdict: 'info',
					},
					{
						section: 4,
						measure: 'Deliveries acknowledged (answered 2xx) per second: trigger vs plain Webhook node',
						ours: formatSummary(ackRate('trigger'), '/s'),
						baseline: formatSummary(ackRate('webhookNode'), '/s'),
						ratio: formatRatio(ratioOfMedians(ackRate('trigger'), ackRate('webhookNode'))),
						target: '—',
						verdict: 'info',
					},
				],
				checks,
				notes: [
					'Ratios here are throughput (higher is better): ours ÷ the Webhook node. Execution data is saved as n8n does by default, for both.',
				],
				data: { perRun, concurrency: CONCURRENCY, outcomes },
			};
		} finally {
			await dispatcher.close();
			for (const target of Object.values(targets)) {
				await n8n.client.deactivate(target.workflowId).catch(() => {});
			}
		}
	},
};
