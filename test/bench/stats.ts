/** Summaries of repeated measurements: median with min and max, and ratios of medians. */

export interface Summary {
	median: number;
	min: number;
	max: number;
	runs: number;
	samples: number[];
}

export function summarize(samples: number[]): Summary {
	if (samples.length === 0) throw new Error('no samples to summarize');
	const sorted = [...samples].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	return { median, min: sorted[0], max: sorted.at(-1)!, runs: samples.length, samples };
}

/** `ours / baseline` of the medians. */
export function ratioOfMedians(ours: Summary, baseline: Summary): number {
	return ours.median / baseline.median;
}

/** A number with a sensible number of significant digits for a table. */
export function formatNumber(value: number): string {
	const magnitude = Math.abs(value);
	if (magnitude >= 100) return value.toFixed(0);
	if (magnitude >= 10) return value.toFixed(1);
	if (magnitude >= 1) return value.toFixed(2);
	return value.toPrecision(2);
}

/** `median [min–max] unit`. */
export function formatSummary(summary: Summary, unit: string): string {
	return `${formatNumber(summary.median)} [${formatNumber(summary.min)}–${formatNumber(summary.max)}] ${unit}`;
}

export function formatRatio(ratio: number): string {
	return `${ratio.toFixed(2)}×`;
}

/**
 * The order of the variants in run `index`: rotated by one each run (A B C, B C A, C A B, …), so that a machine
 * slowly getting busier or quieter (other processes, thermal, GC state) does not favour whichever goes first.
 */
export function rotate<T>(index: number, variants: readonly T[]): T[] {
	const shift = index % variants.length;
	return [...variants.slice(shift), ...variants.slice(0, shift)];
}

/**
 * A worker's measured rounds: each round runs every variant once, in `rotate`'s order; `rounds` of them, or fewer once
 * `deadline` (a Date.now() value) has passed — the first round always runs. `startRound` prepares a round (e.g. the
 * deliveries its variants share) and returns how to run one variant in it.
 */
export async function inTurns<T>(
	variants: readonly T[],
	limits: { rounds: number; deadline: number },
	startRound: (round: number) => (variant: T) => Promise<void>,
): Promise<void> {
	for (let round = 0; round < limits.rounds && (round === 0 || Date.now() < limits.deadline); round++) {
		const runVariant = startRound(round);
		for (const variant of rotate(round, variants)) await runVariant(variant);
	}
}
