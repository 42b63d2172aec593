/**
 * 4. Deliveries through real n8n: signed 5 KB deliveries per second that the Booking Service Trigger turns into
 * executions, against two baselines in the same n8n process: n8n's plain Webhook node (no verification, and in
 * n8n 2.41 no expression isolate per request), and the fair peer, n8n's own Cal.com Trigger (a trigger node that
 * verifies an HMAC signature, so n8n pays the same per-request isolate for it as for ours). The executions are
 * counted: none lost, none doubled.
 *
 * All three workflows are active at once. The bench plays the service: it sends the same bodies to each (signed as
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
import { calSignature, startCalComStub } from './cal-com-stub.ts';
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { Delivery } from './deliveries.ts';
import { deliveryTemplate, makeDeliveries, sampleBooking } from './deliveries.ts';
import type { RunOutcome, Target } from './delivery-runs.ts';
import { CONCURRENCY, runOnce, SETTLE_MS, throughputRow, totals } from './delivery-runs.ts';
import type { N8nBench } from './n8n.ts';
import { postWhenRegistered } from './n8n.ts';
import { progress } from './processes.ts';
import type { Check, SectionReport } from './report.ts';
import { rotate } from './stats.ts';

const VARIANTS = ['trigger', 'calComTrigger', 'webhookNode'] as const;
type Variant = (typeof VARIANTS)[number];
const TRIGGER_NAME = 'Booking Service Trigger';

async function activateWorkflows(n8n: N8nBench, cal: CalComStub): Promise<Record<Variant, Target>> {
	const triggerWebhookId = randomUUID();
	const trigger = await n8n.client.createWorkflow({
		name: 'bench: Booking Service Trigger',
		nodes: [
			{
				name: TRIGGER_NAME,
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
	const calCredential = await n8n.client.createCredential({
		name: 'Cal.com (loopback stub)',
		type: 'calApi',
		data: { apiKey: 'bench-key', host: cal.host },
	});
	const calWebhookId = randomUUID();
	const calTrigger = await n8n.client.createWorkflow({
		name: "bench: n8n's Cal.com Trigger",
		nodes: [
			{
				name: 'Cal.com Trigger',
				type: 'n8n-nodes-base.calTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId: calWebhookId,
				parameters: { version: 2, events: ['BOOKING_CREATED'], options: {} },
				credentials: { calApi: { id: calCredential.id, name: calCredential.name } },
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
	for (const { id } of [trigger, calTrigger, plain]) await n8n.client.activate(id);
	return {
		trigger: {
			workflowId: trigger.id,
			url: `${n8n.client.webhookUrl}webhook/${triggerWebhookId}/webhook`,
			eventIdsFrom: TRIGGER_NAME,
			dropsRepeats: true,
		},
		calComTrigger: { workflowId: calTrigger.id, url: `${n8n.client.webhookUrl}webhook/${calWebhookId}/webhook` },
		webhookNode: { workflowId: plain.id, url: `${n8n.client.webhookUrl}webhook/${path}` },
	};
}

/**
 * The deliveries as each variant receives them. Cal.com's trigger gets Cal.com's envelope around the same booking
 * (`{ triggerEvent, createdAt, payload }`; it outputs the payload's fields), so both triggers emit and store an item
 * of the same size, signed as Cal.com signs. The plain Webhook node gets our bytes and verifies nothing.
 */
function signedFor(variant: Variant, deliveries: Delivery[], calSecret: string): Delivery[] {
	if (variant !== 'calComTrigger') return deliveries;
	return deliveries.map((delivery) => {
		const ours = JSON.parse(delivery.body.toString('utf8')) as { id: string; createdAt: string; data: { booking: object } };
		const body = Buffer.from(
			JSON.stringify({
				triggerEvent: 'BOOKING_CREATED',
				createdAt: ours.createdAt,
				payload: { eventId: ours.id, ...ours.data.booking },
			}),
		);
		return {
			...delivery,
			body,
			headers: { 'content-type': 'application/json', 'x-cal-signature-256': calSignature(calSecret, body) },
		};
	});
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
		const calSecret = cal.secretFor(targets.calComTrigger.url);
		const dispatcher = new Agent({ connections: CONCURRENCY });
		try {
			const { items } = await sim.control<{ items: Array<{ url: string; secret: string; status: string }> }>('GET', '/webhooks');
			const subscription = items.find((item) => item.url === targets.trigger.url && item.status === 'active');
			if (subscription === undefined) throw new Error(`the trigger did not subscribe ${targets.trigger.url} on the simulator`);
			const template = deliveryTemplate(await sampleBooking(sim.control));

			// Both webhooks answer before the first run (n8n registers them a moment after publishing).
			for (const variant of VARIANTS) {
				const [probe] = signedFor(variant, makeDeliveries(template, subscription.secret, 1), calSecret);
				const answer = await postWhenRegistered(targets[variant].url, probe.body, probe.headers);
				if (answer.status !== 200) throw new Error(`${variant} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
			}

			progress(`deliveries: ${counts.warmups} warm-up + ${counts.runs} runs of ${perRun} deliveries to each workflow, ${CONCURRENCY} in flight`);
			const outcomes: Record<Variant, RunOutcome[]> = { trigger: [], calComTrigger: [], webhookNode: [] };
			for (let index = 0; index < counts.warmups + counts.runs && Date.now() < context.deadline; index++) {
				// New event ids every run (the trigger drops ids it has seen); both workflows get the same bytes.
				const deliveries = makeDeliveries(template, subscription.secret, perRun);
				for (const variant of rotate(index, VARIANTS)) {
					const outcome = await runOnce(n8n.client, targets[variant], signedFor(variant, deliveries, calSecret), dispatcher);
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
			const trigger = totals(outcomes.trigger);
			checks.push({
				what: 'trigger: deliveries sent again are acknowledged without an execution',
				passed: trigger.resent === trigger.resentAcknowledgedWithoutRun && trigger.resent > 0,
				detail: `${trigger.resentAcknowledgedWithoutRun} of ${trigger.resent} resent deliveries answered 200 "already received"; the execution counts above include the time after them`,
			});
			checks.push({
				what: 'trigger: each sent event id is in exactly one execution',
				passed: trigger.eventIdsMissing === 0 && trigger.eventIdsDoubled === 0,
				detail: `${trigger.eventIdsMissing} missing, ${trigger.eventIdsDoubled} doubled or unknown`,
			});

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
				],
				checks,
				notes: [
					'Ratios here are throughput (higher is better): ours ÷ the baseline named. Execution data is saved as n8n does by default, for all three.',
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
