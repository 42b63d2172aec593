/** What each section of the bench gets from run.ts. */
import type { N8nBench } from './n8n.ts';
import type { SimulatorProcess } from './processes.ts';
import type { SectionReport } from './report.ts';

export interface BenchContext {
	quick: boolean;
	/** Set with --profile: workers (and n8n) write V8 CPU profiles under this folder. */
	profileDir: string | undefined;
	/** The one simulator of this run, started on first use. */
	simulator(): Promise<SimulatorProcess>;
	/** The one real n8n of this run (package installed, simulator credential made), started on first use. */
	n8n(): Promise<N8nBench>;
	/** Epoch ms after which the running section should not start more runs (set anew for each section). */
	deadline: number;
}

export interface Section {
	/** The name --only takes. */
	id: string;
	title: string;
	run(context: BenchContext): Promise<SectionReport>;
}

/** Measured runs after warm-up: several in a full run, fewer with --quick. */
export function runCounts(context: BenchContext, full: { warmups: number; runs: number }, quick: { warmups: number; runs: number }) {
	return context.quick ? quick : full;
}
