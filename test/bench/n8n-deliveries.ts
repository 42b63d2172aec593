/**
 * 4. Deliveries through real n8n: signed 5 KB deliveries per second that the Booking Service Trigger turns into
 * executions, against two baselines in the same n8n process: n8n's plain Webhook node (no verification, and in
 * n8n 2.41 no expression isolate per request), and the fair peer, n8n's own Cal.com Trigger (a trigger node that
 * verifies an HMAC signature, so n8n pays the same per-request isolate for it as for ours). The executions are
 * counted: none lost, none doubled. The trigger runs twice: at version 1.1 (what a new node gets) and at version 1
 * (workflows made before it), for which n8n evaluates an expression on every request. With the CPU time of the n8n
 * process per delivery (process-cpu.ts).
 *
 * All four workflows are active at once. The bench plays the service: it sends the same bodies to each (signed as
 * each expects: our `Service-Signature`, Cal.com's `X-Cal-Signature-256`), a fixed number per run with a bounded
 * number in flight, one workflow after the other (rotated). Throughput = deliveries ÷ (last execution's stoppedAt −
 * first send), with stoppedAt from n8n's own execution records (delivery-runs.ts). For our trigger, part of each run
 * is sent again afterwards (a retried delivery): those must be acknowledged without an execution, and every
 * execution must carry one of the sent event ids, each once. The Cal.com Trigger subscribes at a loopback stub of
 * Cal.com's webhook API (cal-com-stub.ts).
 */
import { randomUUID } from 'node:crypto';

import { Agent } from 'undici';

import type { CalComStub } from './cal-com-stub.ts';
import { startCalComStub } from './cal-com-stub.ts';
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { Delivery } from './deliveries.ts';
import { deliveryTemplate, makeDeliveries, sampleBooking, signDelivery } from './deliveries.ts';
import type { RunOutcome, Target } from './delivery-runs.ts';
import { CONCURRENCY, cpuRow, runOnce, SETTLE_MS, throughputRow, totals } from './delivery-runs.ts';
import type { N8nBench } from './n8n.ts';
import { postWhenRegistered } from './n8n.ts';
import { activateCalComTrigger, activatePlainWebhook, asCalComDeliveries } from './peer-workflows.ts';
import { progress } from './processes.ts';
import type { Check, SectionReport } from './report.ts';
import { rotate } from './stats.ts';

const VARIANTS = ['trigger', 'triggerV1', 'calComTrigger', 'webhookNode'] as const;
type Variant = (typeof VARIANTS)[number];
const TRIGGER_NAME = 'Booking Service Trigger';
/** What a new node gets, and version 1 (workflows made before 1.1), for which n8n evaluates an expression per request. */
const TRIGGER_VERSIONS = { trigger: 1.1, triggerV1: 1 } as const;

async function activateWorkflows(n8n: N8nBench, cal: CalComStub): Promise<Record<Variant, Target>> {
	const cpuPid = n8n.client.pid;
	const triggerTarget = async (typeVersion: number): Promise<Target> => {
		const webhookId = randomUUID();
		const workflow = await n8n.client.createWorkflow({
			name: `bench: Booking Service Trigger ${typeVersion}`,
			nodes: [
				{
					name: TRIGGER_NAME,
					type: 'n8n-nodes-booking-service.bookingServiceTrigger',
					typeVersion,
					position: [0, 0],
					webhookId,
					parameters: { events: ['*'], options: {} },
					credentials: { bookingServiceApi: n8n.bookingCredential },
				},
			],
			connections: {},
		});
		await n8n.client.activate(workflow.id);
		return {
			workflowId: workflow.id,
			url: `${n8n.client.webhookUrl}webhook/${webhookId}/webhook`,
			eventIdsFrom: TRIGGER_NAME,
			dropsRepeats: true,
			cpuPid,
		};
	};
	const trigger = await triggerTarget(TRIGGER_VERSIONS.trigger);
	const triggerV1 = await triggerTarget(TRIGGER_VERSIONS.triggerV1);
	const calComTrigger = await activateCalComTrigger(n8n.client, cal);
	const webhookNode = await activatePlainWebhook(n8n.client);
	return {
		trigger,
		triggerV1,
		calComTrigger: { workflowId: calComTrigger.workflowId, url: `${n8n.client.webhookUrl}webhook/${calComTrigger.path}`, cpuPid },
		webhookNode: { workflowId: webhookNode.workflowId, url: `${n8n.client.webhookUrl}webhook/${webhookNode.path}`, cpuPid },
	};
}

/**
 * The deliveries as each variant receives them: the same bytes signed with each trigger's own secret, Cal.com's
 * envelope around the same booking for the Cal.com Trigger (peer-workflows.ts); the plain Webhook node gets our bytes
 * and verifies nothing.
 */
function signedFor(variant: Variant, deliveries: Delivery[], secrets: { calCom: string; triggerV1: string }): Delivery[] {
	if (variant === 'triggerV1') {
		// Its own subscription, so its own secret; the same bytes.
		return deliveries.map((delivery) => ({
			...delivery,
			headers: { ...delivery.headers, 'service-signature': signDelivery(secrets.triggerV1, delivery.body) },
		}));
	}
	if (variant !== 'calComTrigger') return deliveries;
	return asCalComDeliveries(deliveries, secrets.calCom);
}

export const deliveriesSection: Section = {
	id: 'deliveries',
	title: "Signed deliveries through real n8n: trigger vs n8n's Cal.com Trigger and plain Webhook node",
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		const n8n = await context.n8n();
		// On 2 busy cores n8n 2.41 turns 5–20 deliveries a second into executions: 150 a run keeps this section near 3 min.
		const counts = runCounts(context, { warmups: 1, runs: 4 }, { warmups: 1, runs: 3 });
		const perRun = context.quick ? 100 : 150;
		const cal = await startCalComStub();
		const targets = await activateWorkflows(n8n, cal);
		const dispatcher = new Agent({ connections: CONCURRENCY });
		try {
			const { items } = await sim.control<{ items: Array<{ url: string; secret: string; status: string }> }>('GET', '/webhooks');
			const subscriptionOf = (variant: 'trigger' | 'triggerV1') => {
				const found = items.find((item) => item.url === targets[variant].url && item.status === 'active');
				if (found === undefined) throw new Error(`the trigger did not subscribe ${targets[variant].url} on the simulator`);
				return found;
			};
			const subscription = subscriptionOf('trigger');
			const secrets = { calCom: cal.secretFor(targets.calComTrigger.url), triggerV1: subscriptionOf('triggerV1').secret };
			const template = deliveryTemplate(await sampleBooking(sim.control));

			// Both webhooks answer before the first run (n8n registers them a moment after publishing).
			for (const variant of VARIANTS) {
				const [probe] = signedFor(variant, makeDeliveries(template, subscription.secret, 1), secrets);
				const answer = await postWhenRegistered(targets[variant].url, probe.body, probe.headers);
				if (answer.status !== 200) throw new Error(`${variant} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
			}

			progress(`deliveries: ${counts.warmups} warm-up + ${counts.runs} runs of ${perRun} deliveries to each workflow, ${CONCURRENCY} in flight`);
			const outcomes: Record<Variant, RunOutcome[]> = { trigger: [], triggerV1: [], calComTrigger: [], webhookNode: [] };
			for (let index = 0; index < counts.warmups + counts.runs && Date.now() < context.deadline; index++) {
				// New event ids every run (the trigger drops ids it has seen); both workflows get the same bytes.
				const deliveries = makeDeliveries(template, subscription.secret, perRun);
				for (const variant of rotate(index, VARIANTS)) {
					const outcome = await runOnce(n8n.client, targets[variant], signedFor(variant, deliveries, secrets), dispatcher);
					if (index >= counts.warmups) outcomes[variant].push(outcome);
				}
			}

			const checks: Check[] = VARIANTS.map((variant) => {
				const sum = totals(outcomes[variant]);
				return {
					what: `${variant}: one execution per delivery, none lost, none doubled`,
					passed:
						sum.acknowledged === sum.deliveries &&
						sum.executions === sum.deliveries &&
						sum.executionsAfterPause === sum.deliveries &&
						sum.failedExecutions === 0,
					detail: `${sum.deliveries} sent, ${sum.acknowledged} acknowledged, ${sum.executions} executions (${sum.executionsAfterPause} after a ${SETTLE_MS / 1000} s pause), ${sum.failedExecutions} not successful`,
				};
			});
			for (const variant of ['trigger', 'triggerV1'] as const) {
				const sum = totals(outcomes[variant]);
				checks.push({
					what: `${variant}: deliveries sent again are acknowledged without an execution`,
					passed: sum.resent === sum.resentAcknowledgedWithoutRun && sum.resent > 0,
					detail: `${sum.resentAcknowledgedWithoutRun} of ${sum.resent} resent deliveries answered 200 "already received"; the execution counts above include the time after them`,
				});
				checks.push({
					what: `${variant}: each sent event id is in exactly one execution`,
					passed: sum.eventIdsMissing === 0 && sum.eventIdsDoubled === 0,
					detail: `${sum.eventIdsMissing} missing, ${sum.eventIdsDoubled} doubled or unknown`,
				});
			}

			return {
				id: this.id,
				title: this.title,
				rows: [
					throughputRow(
						4,
						`Signed 5 KB deliveries through real n8n turned into executions: Booking Service Trigger vs n8n's own Cal.com Trigger, the fair peer (${perRun} per run, ${CONCURRENCY} in flight)`,
						'executionsPerSecond',
						outcomes.trigger,
						outcomes.calComTrigger,
						1,
					),
					throughputRow(
						4,
						'The same deliveries: Booking Service Trigger vs plain Webhook node (no verification, no per-request isolate)',
						'executionsPerSecond',
						outcomes.trigger,
						outcomes.webhookNode,
					),
					throughputRow(
						4,
						"Deliveries acknowledged (answered 2xx) per second: trigger vs n8n's Cal.com Trigger",
						'acknowledgedPerSecond',
						outcomes.trigger,
						outcomes.calComTrigger,
					),
					throughputRow(
						4,
						`The same deliveries: Booking Service Trigger ${TRIGGER_VERSIONS.trigger} (a new node) vs the same trigger at version 1 (workflows made before 1.1)`,
						'executionsPerSecond',
						outcomes.trigger,
						outcomes.triggerV1,
					),
					...[
						cpuRow(4, "n8n's CPU per delivery (all threads, send to last execution): trigger vs n8n's Cal.com Trigger", outcomes.trigger, outcomes.calComTrigger),
						cpuRow(4, "n8n's CPU per delivery: trigger vs plain Webhook node", outcomes.trigger, outcomes.webhookNode),
						cpuRow(4, "n8n's CPU per delivery: trigger 1.1 vs trigger 1", outcomes.trigger, outcomes.triggerV1),
					].filter((row) => row !== undefined),
				],
				checks,
				notes: [
					'Ratios here are throughput (higher is better): ours ÷ the baseline named. Execution data is saved as n8n does by default, for all three.',
					"CPU rows (lower is better): the n8n process's user + system time from /proc over a run (webhook, execution, saving it, and the bench's count polls every 100 ms), ÷ deliveries.",
				],
				data: { perRun, concurrency: CONCURRENCY, outcomes },
			};
		} finally {
			await dispatcher.close();
			for (const target of Object.values(targets)) {
				await n8n.client.deactivate(target.workflowId).catch(() => {});
			}
			await cal.stop();
		}
	},
};
