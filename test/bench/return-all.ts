/**
 * 1. Return All: 10,000 bookings (100 pages of 100) from the simulator on loopback, through the action node in n8n's
 * engine (n8n-core's WorkflowExecute, the built node, n8n's own HTTP helper and credential handling), against a plain
 * undici loop fetching the same pages — the limit for a cursor API — and against a minimal node paging with n8n's own
 * HTTP helper. Target: client CPU ≤ 1.10× the minimal node's (what our code adds; ratio of medians).
 *
 * Both run in one worker process, alternating, against one simulator in its own process; so the simulator's time is
 * in both figures and its CPU in neither CPU figure. Peak memory growth is measured per run from a collected heap.
 */
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { RunMeasurement } from './measure.ts';
import type { SimulatorProcess } from './processes.ts';
import { progress, runWorker } from './processes.ts';
import type { ReturnAllInput, ReturnAllResult, ReturnAllVariant } from './return-all.worker.ts';
import type { SectionReport } from './report.ts';
import { infoRow, targetRow } from './report.ts';
import type { Summary } from './stats.ts';
import { summarize } from './stats.ts';

export const RETURN_ALL_ITEMS = 10_000;
const CPU_TARGET_RATIO = 1.1;
/** GET /bookings leaves these out unless asked for (contract: the default status filter). */
const HIDDEN_BY_DEFAULT = new Set(['held', 'awaiting_payment']);

/**
 * Makes GET /bookings (default filters) list exactly `total` bookings: the seeded ones it shows plus generated
 * confirmed ones. Idempotent, so sections 1 and 2 can both ask for it.
 */
export async function ensureListedBookings(sim: SimulatorProcess, total: number): Promise<void> {
	const { items } = await sim.control<{ items: Array<{ status: string }> }>('GET', '/bookings');
	const listed = items.filter((booking) => !HIDDEN_BY_DEFAULT.has(booking.status)).length;
	if (listed > total) throw new Error(`the simulator already lists ${listed} bookings, more than ${total}`);
	if (listed < total) await sim.control('POST', '/bookings/generate', { count: total - listed });
}

export const returnAllSection: Section = {
	id: 'return-all',
	title: `Return All of ${RETURN_ALL_ITEMS.toLocaleString('en')} bookings, engine vs undici`,
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		await ensureListedBookings(sim, RETURN_ALL_ITEMS);
		const counts = runCounts(context, { warmups: 2, runs: 9 }, { warmups: 1, runs: 3 });
		progress(`return-all: ${counts.warmups} warm-up + ${counts.runs} runs of each variant`);
		const input: ReturnAllInput = {
			baseUrl: sim.baseUrl,
			apiKey: sim.apiKeys.readOnly,
			expectedItems: RETURN_ALL_ITEMS,
			...counts,
			timeLimitMs: Math.max(10_000, Math.min(120_000, context.deadline - Date.now())),
		};
		const result = await runWorker<ReturnAllResult>('return-all.worker.ts', input, {
			timeoutMs: 240_000,
			cpuProfileDir: context.profileDir === undefined ? undefined : `${context.profileDir}/return-all`,
		});
		const pick = (variant: ReturnAllVariant, key: keyof RunMeasurement) =>
			summarize(result.runs[variant].map((run) => run[key]));
		const wall = (variant: ReturnAllVariant) => pick(variant, 'wallMs');
		const cpu = (variant: ReturnAllVariant) => pick(variant, 'cpuMs');
		const heap = (variant: ReturnAllVariant) => pick(variant, 'peakHeapGrowthMiB');
		const rss = (variant: ReturnAllVariant) => pick(variant, 'peakRssGrowthMiB');
		const retained = (variant: ReturnAllVariant) => pick(variant, 'retainedHeapMiB');
		const info = (measure: string, ours: Summary, baseline: Summary, unit: string) => infoRow(1, measure, ours, baseline, unit);
		return {
			id: this.id,
			title: this.title,
			rows: [
				info(
					`Return All, ${RETURN_ALL_ITEMS.toLocaleString('en')} bookings in ${result.pagesPerRun} pages, wall time: action node in n8n's engine vs plain undici loop`,
					wall('actionNode'),
					wall('undici'),
					'ms',
				),
				info('Return All, client CPU time (simulator not included): action node vs undici loop', cpu('actionNode'), cpu('undici'), 'ms'),
				info('Return All, peak memory growth (V8 heap + external): action node vs undici loop', heap('actionNode'), heap('undici'), 'MiB'),
				info('Return All, peak RSS growth: action node vs undici loop', rss('actionNode'), rss('undici'), 'MiB'),
				info('Return All, memory retained by the result (after GC): action node vs undici loop', retained('actionNode'), retained('undici'), 'MiB'),
				info(
					"Return All, wall time: action node vs a minimal node paging with n8n's own httpRequestWithAuthentication (what our code adds)",
					wall('actionNode'),
					wall('minimalNode'),
					'ms',
				),
				targetRow(1, 'Return All, client CPU time: action node vs the minimal node (the target: what our code adds)', cpu('actionNode'), cpu('minimalNode'), 'ms', {
					atMost: CPU_TARGET_RATIO,
				}),
				info('Return All, memory retained by the result (after GC): action node vs the minimal node', retained('actionNode'), retained('minimalNode'), 'MiB'),
				info("Return All, wall time: the minimal node vs undici loop (what n8n's engine and HTTP helper add)", wall('minimalNode'), wall('undici'), 'ms'),
			],
			checks: [
				{
					what: 'Return All item count',
					passed: true,
					detail: `every run of every variant returned exactly ${RETURN_ALL_ITEMS} bookings (the worker stops otherwise)`,
				},
			],
			notes: [
				"The variants take turns in one worker process against the simulator in its own process: the simulator's time per page is in every wall time and in no CPU time, so the CPU rows show the client's cost alone.",
			],
			data: { input: { ...input, apiKey: undefined }, ...result },
		};
	},
};
