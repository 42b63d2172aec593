/**
 * 6. Polling trigger: the cost of one poll over 10,000 changed bookings (a day's backlog read in one poll) and of an
 * idle poll, each as a ratio against the action node's Return All of the same 10,000 bookings, in one worker process
 * against the simulator in its own process. No target: the figures say what polling costs next to reading everything.
 */
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { RunMeasurement } from './measure.ts';
import type { PollingInput, PollingResult, PollingVariant } from './polling.worker.ts';
import { progress, runWorker } from './processes.ts';
import type { SectionReport } from './report.ts';
import { infoRow } from './report.ts';
import { ensureListedBookings, RETURN_ALL_ITEMS } from './return-all.ts';
import { summarize } from './stats.ts';

export const pollingSection: Section = {
	id: 'polling',
	title: `Polling trigger: a poll over ${RETURN_ALL_ITEMS.toLocaleString('en')} changed bookings, and an idle poll, vs Return All`,
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		await ensureListedBookings(sim, RETURN_ALL_ITEMS);
		const counts = runCounts(context, { warmups: 1, runs: 5 }, { warmups: 1, runs: 2 });
		progress(`polling: ${counts.warmups} warm-up + ${counts.runs} runs of each variant`);
		const input: PollingInput = {
			baseUrl: sim.baseUrl,
			controlUrl: sim.controlUrl,
			apiKey: sim.apiKeys.readOnly,
			expectedItems: RETURN_ALL_ITEMS,
			...counts,
			timeLimitMs: Math.max(10_000, Math.min(120_000, context.deadline - Date.now())),
		};
		const result = await runWorker<PollingResult>('polling.worker.ts', input, { timeoutMs: 240_000 });
		const pick = (variant: PollingVariant, key: keyof RunMeasurement) =>
			summarize(result.runs[variant].map((run) => run[key]));
		const row = (measure: string, ours: PollingVariant, key: keyof RunMeasurement, unit: string) =>
			infoRow(6, measure, pick(ours, key), pick('returnAll', key), unit);
		return {
			id: this.id,
			title: this.title,
			rows: [
				row('Poll over 10,000 changed bookings, wall time: polling trigger vs action node Return All', 'backlogPoll', 'wallMs', 'ms'),
				row('Poll over 10,000 changed bookings, peak memory growth: polling trigger vs Return All', 'backlogPoll', 'peakHeapGrowthMiB', 'MiB'),
				row('Idle poll (nothing changed, one request), wall time: polling trigger vs Return All', 'idlePoll', 'wallMs', 'ms'),
				row('Idle poll, peak memory growth: polling trigger vs Return All', 'idlePoll', 'peakHeapGrowthMiB', 'MiB'),
			],
			checks: [
				{
					what: 'Polling: each change once',
					passed: true,
					detail: `every backlog poll emitted exactly ${RETURN_ALL_ITEMS} items and every idle poll none (the worker stops otherwise)`,
				},
			],
			notes: [
				`The trigger's saved state after the backlog poll: ${(result.savedStateBytes / 1024).toFixed(0)} KiB of JSON. The generated backlog changed in one instant, so all 10,000 states sit inside the two-minute overlap and are kept until the position moves on; after that, at most 2,000.`,
				'The idle poll is measured at the steady state: ten minutes after the burst, one more change has moved the position past it, and a poll with nothing new is one request. Right after a burst of more than 100 changes, polls re-read the burst (one request per 100) until the next change.',
			],
			data: { input: { ...input, apiKey: undefined }, ...result },
		};
	},
};
