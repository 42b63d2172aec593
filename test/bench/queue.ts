/**
 * 7. Queue mode: signed 5 KB deliveries per second that become executions when n8n runs as main + 1 worker + 2
 * webhook processes behind a round-robin proxy (test/n8n/queue.ts, on Postgres and Redis), against the same topology
 * with every delivery sent to one webhook process. One topology serves both: the baseline posts to webhook process 1
 * directly, ours to the proxy. Same workflow, same worker, same bytes; runs alternate.
 *
 * In the same topology, deliveries sent to webhook process 1 directly are compared with the same deliveries to n8n's
 * Cal.com Trigger (the fair peer) and plain Webhook node (peer-workflows.ts): acknowledged per second, and the CPU
 * time of webhook process 1 per delivery (process-cpu.ts) — what a delivery costs the process that runs `webhook()`.
 * With --profile, the webhook processes write V8 CPU profiles.
 *
 * Nothing may be lost: every sent event id in exactly one execution, every execution successful, and the count still
 * the same after a pause. (Repeats are not resent here: each webhook process drops only the repeats it saw itself,
 * so a resent copy through the proxy may run again — docs/queue-mode.md says so.)
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { Agent } from 'undici';

import { REPO_ROOT } from '../n8n/install.ts';
import { startQueueN8n } from '../n8n/queue.ts';
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import { startCalComStub } from './cal-com-stub.ts';
import type { Delivery } from './deliveries.ts';
import { deliveryTemplate, makeDeliveries, sampleBooking } from './deliveries.ts';
import type { RunOutcome, Target } from './delivery-runs.ts';
import { CONCURRENCY, cpuRow, runOnce, SETTLE_MS, throughputRow, totals } from './delivery-runs.ts';
import { postWhenRegistered } from './n8n.ts';
import { activateCalComTrigger, activatePlainWebhook, asCalComDeliveries } from './peer-workflows.ts';
import { packageDir, progress } from './processes.ts';
import type { Check, SectionReport } from './report.ts';
import { rotate } from './stats.ts';

const VARIANTS = ['twoWebhookProcesses', 'oneWebhookProcess', 'calComTrigger', 'webhookNode'] as const;
type Variant = (typeof VARIANTS)[number];
const TRIGGER_NAME = 'Booking Service Trigger';
/** What a new node gets (version 1 costs n8n an expression per request, see section 4). */
const TRIGGER_VERSION = 1.1;

export const queueSection: Section = {
	id: 'queue',
	title: 'Queue mode: deliveries through 2 webhook processes + 1 worker vs 1 webhook process',
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		progress('queue: starting Postgres, Redis, n8n main, 1 worker and 2 webhook processes (about 30 s)');
		const profileDir = context.profileDir === undefined ? undefined : join(context.profileDir, 'queue-webhook');
		const queue = await startQueueN8n({
			packageDir: packageDir(),
			dataDir: join(REPO_ROOT, '.cache', 'bench-queue'),
			env: { N8N_LOG_LEVEL: 'warn' },
			...(profileDir === undefined ? {} : { webhookEnv: { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } }),
		});
		const dispatcher = new Agent({ connections: CONCURRENCY });
		const cal = await startCalComStub();
		try {
			const client = queue.main;
			const credential = await client.createCredential({
				name: 'Booking Service (simulator)',
				type: 'bookingServiceApi',
				data: { apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl },
			});
			const webhookId = randomUUID();
			const workflow = await client.createWorkflow({
				name: 'bench: Booking Service Trigger in queue mode',
				nodes: [
					{
						name: TRIGGER_NAME,
						type: 'n8n-nodes-booking-service.bookingServiceTrigger',
						typeVersion: TRIGGER_VERSION,
						position: [0, 0],
						webhookId,
						parameters: { events: ['*'], options: {} },
						credentials: { bookingServiceApi: { id: credential.id, name: credential.name } },
					},
				],
				connections: {},
			});
			await client.activate(workflow.id);
			const calComTrigger = await activateCalComTrigger(client, cal);
			const webhookNode = await activatePlainWebhook(client);
			const path = `webhook/${webhookId}/webhook`;
			const [first] = queue.webhooks;
			const targets: Record<Variant, Target> = {
				twoWebhookProcesses: { workflowId: workflow.id, url: `${queue.proxy.url}${path}`, eventIdsFrom: TRIGGER_NAME },
				oneWebhookProcess: { workflowId: workflow.id, url: `${first.url}${path}`, eventIdsFrom: TRIGGER_NAME, cpuPid: first.pid },
				calComTrigger: { workflowId: calComTrigger.workflowId, url: `${first.url}webhook/${calComTrigger.path}`, cpuPid: first.pid },
				webhookNode: { workflowId: webhookNode.workflowId, url: `${first.url}webhook/${webhookNode.path}`, cpuPid: first.pid },
			};
			// Cal.com's subscription names the proxy, the URL n8n gave it.
			const calSecret = cal.secretFor(`${queue.proxy.url}webhook/${calComTrigger.path}`);
			const signedFor = (variant: Variant, deliveries: Delivery[]) =>
				variant === 'calComTrigger' ? asCalComDeliveries(deliveries, calSecret) : deliveries;
			const { items } = await sim.control<{ items: Array<{ url: string; secret: string; status: string }> }>('GET', '/webhooks');
			const subscription = items.find((item) => item.url === targets.twoWebhookProcesses.url && item.status === 'active');
			if (subscription === undefined) throw new Error('the trigger did not subscribe the proxy URL on the simulator');
			const template = deliveryTemplate(await sampleBooking(sim.control));
			for (const process of queue.webhooks) {
				const [probe] = makeDeliveries(template, subscription.secret, 1);
				const answer = await postWhenRegistered(`${process.url}${path}`, probe.body, probe.headers);
				if (answer.status !== 200) throw new Error(`${process.url} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
			}
			for (const variant of ['calComTrigger', 'webhookNode'] as const) {
				const [probe] = signedFor(variant, makeDeliveries(template, subscription.secret, 1));
				const answer = await postWhenRegistered(targets[variant].url, probe.body, probe.headers);
				if (answer.status !== 200) throw new Error(`${variant} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
			}

			const counts = runCounts(context, { warmups: 1, runs: 3 }, { warmups: 1, runs: 2 });
			const perRun = context.quick ? 100 : 150;
			progress(`queue: ${counts.warmups} warm-up + ${counts.runs} runs of ${perRun} deliveries per variant, ${CONCURRENCY} in flight`);
			const outcomes: Record<Variant, RunOutcome[]> = { twoWebhookProcesses: [], oneWebhookProcess: [], calComTrigger: [], webhookNode: [] };
			for (let index = 0; index < counts.warmups + counts.runs && Date.now() < context.deadline; index++) {
				for (const variant of rotate(index, VARIANTS)) {
					const deliveries = signedFor(variant, makeDeliveries(template, subscription.secret, perRun));
					const outcome = await runOnce(client, targets[variant], deliveries, dispatcher);
					if (index >= counts.warmups) outcomes[variant].push(outcome);
				}
			}

			const checks: Check[] = VARIANTS.map((variant) => {
				const sum = totals(outcomes[variant]);
				return {
					what:
						targets[variant].eventIdsFrom === undefined
							? `${variant}: one execution per delivery, none lost`
							: `${variant}: every event id in exactly one execution, none lost`,
					passed:
						outcomes[variant].length > 0 &&
						sum.acknowledged === sum.deliveries &&
						sum.executions === sum.deliveries &&
						sum.executionsAfterPause === sum.deliveries &&
						sum.failedExecutions === 0 &&
						sum.eventIdsMissing === 0 &&
						sum.eventIdsDoubled === 0,
					detail: `${sum.deliveries} sent, ${sum.acknowledged} acknowledged, ${sum.executions} executions (${sum.executionsAfterPause} after a ${SETTLE_MS / 1000} s pause), ${sum.eventIdsMissing} ids missing, ${sum.eventIdsDoubled} doubled`,
				};
			});
			return {
				id: this.id,
				title: this.title,
				rows: [
					throughputRow(
						7,
						`Queue mode: signed 5 KB deliveries turned into executions, 2 webhook processes + 1 worker vs 1 webhook process (${perRun} per run, ${CONCURRENCY} in flight)`,
						'executionsPerSecond',
						outcomes.twoWebhookProcesses,
						outcomes.oneWebhookProcess,
					),
					throughputRow(
						7,
						'Queue mode: deliveries acknowledged per second, 2 webhook processes vs 1',
						'acknowledgedPerSecond',
						outcomes.twoWebhookProcesses,
						outcomes.oneWebhookProcess,
					),
					throughputRow(
						7,
						"Queue mode, 1 webhook process: deliveries acknowledged per second, trigger vs n8n's Cal.com Trigger",
						'acknowledgedPerSecond',
						outcomes.oneWebhookProcess,
						outcomes.calComTrigger,
						1,
					),
					throughputRow(
						7,
						'Queue mode, 1 webhook process: deliveries acknowledged per second, trigger vs plain Webhook node',
						'acknowledgedPerSecond',
						outcomes.oneWebhookProcess,
						outcomes.webhookNode,
					),
					...[
						cpuRow(7, "Queue mode: the webhook process's CPU per delivery (all threads, send to last execution), trigger vs n8n's Cal.com Trigger", outcomes.oneWebhookProcess, outcomes.calComTrigger),
						cpuRow(7, "Queue mode: the webhook process's CPU per delivery, trigger vs plain Webhook node", outcomes.oneWebhookProcess, outcomes.webhookNode),
					].filter((row) => row !== undefined),
				],
				checks,
				notes: [
					'Throughput ratios (higher is better). Every process of the topology shares the machine: on 2 cores a second webhook process adds little, since the worker and Postgres compete for the same cores.',
				],
				data: { perRun, concurrency: CONCURRENCY, outcomes },
			};
		} finally {
			await dispatcher.close();
			await queue.stop();
			await cal.stop();
		}
	},
};
