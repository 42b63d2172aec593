/**
 * 6. Polling trigger: draining a backlog of 10,000, 50,000 and 100,000 changed bookings (n8n was down), poll after
 * poll, each as a ratio against the action node's Return All of the same bookings, in one worker process against the
 * simulator in its own process; and the idle poll. No target: the figures show that a poll's memory stays flat as the
 * backlog grows (at most 5,000 changes per execution), where Return All holds every booking at once. Then the size of
 * the trigger's stored state (what n8n writes with each execution) over a simulated day and a 100,000 drain
 * (polling-state.worker.ts).
 */
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { RunMeasurement } from './measure.ts';
import type { StateSizes } from './polling-state.worker.ts';
import type { PollingInput, PollingResult } from './polling.worker.ts';
import { progress, runWorker } from './processes.ts';
import type { Row, SectionReport } from './report.ts';
import { infoRow } from './report.ts';
import { summarize } from './stats.ts';

export const BACKLOG_SIZES = [10_000, 50_000, 100_000];

export const pollingSection: Section = {
	id: 'polling',
	title: 'Polling trigger: draining 10k, 50k and 100k changed bookings vs Return All of them, and an idle poll',
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		const counts = runCounts(context, { warmups: 1, runs: 3 }, { warmups: 0, runs: 1 });
		progress(`polling: ${counts.warmups} warm-up + ${counts.runs} runs of each variant and backlog`);
		const input: PollingInput = {
			baseUrl: sim.baseUrl,
			controlUrl: sim.controlUrl,
			apiKey: sim.apiKeys.readOnly,
			sizes: BACKLOG_SIZES,
			...counts,
			timeLimitMs: Math.max(60_000, Math.min(300_000, context.deadline - Date.now())),
		};
		const result = await runWorker<PollingResult>('polling.worker.ts', input, { timeoutMs: 900_000 });
		const state = await runWorker<StateSizes>('polling-state.worker.ts', {}, { timeoutMs: 600_000 });
		const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
		const pick = (runs: RunMeasurement[], key: keyof RunMeasurement) => summarize(runs.map((run) => run[key]));
		const rows: Row[] = [];
		for (const backlog of result.backlogs) {
			const size = backlog.size.toLocaleString('en');
			rows.push(
				infoRow(6, `${size} changes, wall time: drained by the polling trigger vs Return All`, pick(backlog.drain, 'wallMs'), pick(backlog.returnAll, 'wallMs'), 'ms'),
				infoRow(6, `${size} changes, peak memory growth: polling trigger vs Return All`, pick(backlog.drain, 'peakHeapGrowthMiB'), pick(backlog.returnAll, 'peakHeapGrowthMiB'), 'MiB'),
			);
		}
		rows.push(
			infoRow(6, 'Idle poll (nothing changed: one request), wall time: polling trigger vs Return All of 10,000', pick(result.idle.poll, 'wallMs'), pick(result.backlogs[0].returnAll, 'wallMs'), 'ms'),
		);
		const perChange = (backlog: PollingResult['backlogs'][number]) =>
			`${((summarize(backlog.drain.map((run) => run.wallMs)).median * 1000) / backlog.size).toFixed(0)} µs`;
		return {
			id: this.id,
			title: this.title,
			rows,
			checks: [
				{
					what: 'Polling: each change once, at most 5,000 per execution',
					passed: result.backlogs.every((backlog) => backlog.largestPoll <= 5_000),
					detail: result.backlogs
						.map((backlog) => `${backlog.size}: every change once in ${backlog.polls} polls, at most ${backlog.largestPoll} per poll`)
						.join('; '),
				},
			],
			notes: [
				`Time per change (drain, median): ${result.backlogs.map((backlog) => `${backlog.size.toLocaleString('en')}: ${perChange(backlog)}`).join(', ')}.`,
				`The trigger's saved state right after each drain, polled back to back: ${result.backlogs.map((backlog) => kb(backlog.savedStateBytes)).join(', ')} of JSON (the backlog's last two minutes are kept until they have settled: until a poll three minutes or more after they were read has read them again; with one poll a minute, see below).`,
				`Stored state over a day at a busy account (200 upcoming at activation, ${state.day.changes} changes, one poll a minute): at most ${kb(state.day.maxBytes)}, ${kb(state.day.endBytes)} at the end (${state.day.remembered} bookings remembered); the activation's start in the workflow's static data: ${kb(state.day.startRecordBytes)}.`,
				`Stored state while 100,000 changes drain (${state.drain.polls} polls): at most ${kb(state.drain.maxBytesWhileDraining)}; after: ${kb(state.drain.afterDrainBytes)}; four minutes later: ${kb(state.drain.settledBytes)}.`,
				'A backlog larger than one chunk (1,000 changes) is read twice: once to find where each chunk starts, once to report the chunks oldest first.',
			],
			data: { input: { ...input, apiKey: undefined }, ...result, state },
		};
	},
};
