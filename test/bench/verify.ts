/**
 * 3. Delivery verification: the trigger's webhook() path — signature check, duplicate check, output item — on a 5 KB
 * signed delivery, against a bare createHmac + timingSafeEqual over the same bytes. Target: ≤ 1.3×.
 *
 * webhook() runs through n8n-core's WebhookContext on a trigger activated through its own checkExists/create against
 * the simulator (so the sealed secret lives in static data as in n8n). The warm-up fills the trigger's memory of what
 * ran past its bound, so the runs measure the steady state of a busy trigger.
 * Each measured delivery has a new event id, so every one goes the whole way to an output item.
 */
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import { sampleBooking } from './deliveries.ts';
import { progress, runWorker } from './processes.ts';
import type { SectionReport } from './report.ts';
import { infoRow, targetRow } from './report.ts';
import { summarize } from './stats.ts';
import type { VerifyInput, VerifyResult } from './verify.worker.ts';

const TARGET_RATIO = 1.3;

export const verifySection: Section = {
	id: 'verify',
	title: 'Delivery verification: webhook() vs bare HMAC',
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		const counts = runCounts(context, { warmups: 0, runs: 9 }, { warmups: 0, runs: 5 });
		const input: VerifyInput = {
			baseUrl: sim.baseUrl,
			controlUrl: sim.controlUrl,
			apiKey: sim.apiKeys.readWrite,
			booking: await sampleBooking(sim.control),
			batch: 1_000,
			runs: counts.runs,
			timeLimitMs: Math.max(10_000, Math.min(60_000, context.deadline - Date.now())),
		};
		progress(`verify: warm-up deliveries to fill the trigger's memory, then ${input.runs} runs of ${input.batch}`);
		const result = await runWorker<VerifyResult>('verify.worker.ts', input, {
			timeoutMs: 180_000,
			cpuProfileDir: context.profileDir === undefined ? undefined : `${context.profileDir}/verify`,
		});
		const webhook = summarize(result.microsPerDelivery.webhook);
		const bare = summarize(result.microsPerDelivery.bareHmac);
		const floor = summarize(result.microsPerDelivery.hmacAndParse);
		return {
			id: this.id,
			title: this.title,
			rows: [
				targetRow(
					3,
					`Delivery verification, ${result.bodyBytes / 1024} KB delivery: trigger webhook() (signature + dedupe + output) vs bare createHmac + timingSafeEqual, per delivery`,
					webhook,
					bare,
					'µs',
					{ atMost: TARGET_RATIO },
				),
				infoRow(
					3,
					'Delivery verification: the same bare HMAC + JSON.parse of the body (the least any deduplicating receiver does: the event id is inside the body) vs bare HMAC',
					floor,
					bare,
					'µs',
				),
				infoRow(3, 'Delivery verification: trigger webhook() vs bare HMAC + JSON.parse', webhook, floor, 'µs'),
			],
			checks: [
				{
					what: 'every signed delivery with a new event id became one output item',
					passed: result.executionsStarted === result.deliveriesToWebhook,
					detail: `${result.executionsStarted} of ${result.deliveriesToWebhook} deliveries (warm-up included)`,
				},
			],
			notes: [
				`webhook() is timed alone: building n8n's WebhookContext and parsing the body are n8n's work and are done before the clock starts. Runs of ${result.deliveriesPerRun} deliveries after ${result.warmupDeliveries.toLocaleString('en-US')} warm-up deliveries, so the trigger's memory of what ran is full and turning over (its bound: ${result.runMemoryBound.toLocaleString('en-US')} entries).`,
			],
			data: { input: { ...input, apiKey: undefined, booking: undefined }, ...result },
		};
	},
};
