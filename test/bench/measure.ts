/** Timing, CPU and memory of one run of an async job, for the workers. */

export interface RunMeasurement {
	/** Wall-clock milliseconds. */
	wallMs: number;
	/** User + system CPU milliseconds of this process (the simulator's are not counted: it is another process). */
	cpuMs: number;
	/** Highest (V8 heap used + external memory) during the run, minus the same right before it, in MiB. */
	peakHeapGrowthMiB: number;
	/** Highest resident set size during the run minus the RSS right before it, in MiB. */
	peakRssGrowthMiB: number;
	/**
	 * (V8 heap used + external) after the run and a full GC, with the result still held, minus the same before: what
	 * keeping the output costs. Steadier than the peak, which also counts garbage not collected yet.
	 */
	retainedHeapMiB: number;
}

const MiB = 2 ** 20;
/** Often enough to see the heap between pages (one every ~6 ms); each sample costs ~0.1 ms of CPU, so not more. */
const SAMPLE_EVERY_MS = 10;

const collectGarbage = (globalThis as { gc?: () => void }).gc;
const held: unknown[] = [];

/**
 * Runs `job` once and measures it. Memory is sampled every 10 ms while the job awaits (it does, between pages), and
 * once more when it resolves, while its result is still referenced, so the figure includes holding every item.
 * Needs `--expose-gc` (workers get it) so each run starts from a collected heap.
 */
export async function measureRun<T>(job: () => Promise<T>, check: (result: T) => void): Promise<RunMeasurement> {
	if (collectGarbage === undefined) throw new Error('run the worker with --expose-gc');
	collectGarbage();
	collectGarbage();
	const before = process.memoryUsage();
	const heapBefore = before.heapUsed + before.external;
	let peakHeap = heapBefore;
	let peakRss = before.rss;
	const sample = () => {
		const now = process.memoryUsage();
		peakHeap = Math.max(peakHeap, now.heapUsed + now.external);
		peakRss = Math.max(peakRss, now.rss);
	};
	const sampler = setInterval(sample, SAMPLE_EVERY_MS);
	const cpuBefore = process.cpuUsage();
	const started = performance.now();
	let result: T;
	try {
		result = await job();
	} finally {
		clearInterval(sampler);
	}
	const wallMs = performance.now() - started;
	const cpu = process.cpuUsage(cpuBefore);
	sample();
	check(result);
	// Held from a module variable, so the optimizer cannot treat it as dead during the collections below.
	held.push(result);
	collectGarbage();
	collectGarbage();
	const after = process.memoryUsage();
	held.length = 0;
	const retainedHeapMiB = (after.heapUsed + after.external - heapBefore) / MiB;
	return {
		wallMs,
		cpuMs: (cpu.user + cpu.system) / 1000,
		peakHeapGrowthMiB: (peakHeap - heapBefore) / MiB,
		peakRssGrowthMiB: (peakRss - before.rss) / MiB,
		retainedHeapMiB,
	};
}
