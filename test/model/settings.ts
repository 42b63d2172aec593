/**
 * How many histories a model test generates, and from which seed. `npm test` runs a small fixed number from a fixed
 * seed, so the suite is repeatable; `npm run model -- --runs N [--seed S]` (test/model/cli.ts) sets these variables for
 * a long run. A counterexample's seed and path replay it exactly: `npm run model -- --seed S --path P`.
 */
import type { Parameters } from 'fast-check';

export interface ModelRun {
	/** fast-check's assert parameters: runs, seed, and the shrink path when replaying one counterexample. */
	parameters: Parameters<unknown>;
	/** True in a long run: the caller prints its coverage. */
	long: boolean;
	/** fc.commands' replayPath (the counterexample's replayPath="…"): without it a path replay of commands fails. */
	replayPath: string | undefined;
}

export function modelRun(defaults: { runs: number; seed: number }): ModelRun {
	const runs = Number(process.env.BOOKING_MODEL_RUNS ?? defaults.runs);
	const seed = Number(process.env.BOOKING_MODEL_SEED ?? defaults.seed);
	const path = process.env.BOOKING_MODEL_PATH;
	return {
		parameters: { numRuns: runs, seed, ...(path ? { path } : {}), endOnFailure: process.env.BOOKING_MODEL_NO_SHRINK !== undefined, verbose: 1 },
		long: process.env.BOOKING_MODEL_RUNS !== undefined,
		replayPath: process.env.BOOKING_MODEL_REPLAY_PATH,
	};
}
