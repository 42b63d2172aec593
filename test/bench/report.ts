/** The bench's report: one Markdown table plus notes, and the same in JSON with every sample. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { MachineInfo } from './machine.ts';
import { machineLine } from './machine.ts';
import type { Summary } from './stats.ts';
import { formatRatio, formatSummary, ratioOfMedians } from './stats.ts';

export type Verdict = 'met' | 'missed' | 'info';

export interface Row {
	/** Which section of the bench (1–7). */
	section: number;
	measure: string;
	ours: string;
	baseline: string;
	/** e.g. "1.04×", or "—" when there is no ratio. */
	ratio: string;
	/** e.g. "≤ 1.10×", or "—". */
	target: string;
	verdict: Verdict;
}

/** A row without a target: ours and the baseline (median [min–max] in `unit`), and the ratio of their medians. */
export function infoRow(section: number, measure: string, ours: Summary, baseline: Summary, unit: string): Row {
	return {
		section,
		measure,
		ours: formatSummary(ours, unit),
		baseline: formatSummary(baseline, unit),
		ratio: formatRatio(ratioOfMedians(ours, baseline)),
		target: '—',
		verdict: 'info',
	};
}

/**
 * A row held to one of the targets, judged on the unrounded ratio of the medians: `atMost` / `below` where
 * lower is better (time, CPU), `atLeast` where higher is (deliveries per second).
 */
export function targetRow(
	section: number,
	measure: string,
	ours: Summary,
	baseline: Summary,
	unit: string,
	bound: { atMost: number } | { below: number } | { atLeast: number },
): Row {
	const row = infoRow(section, measure, ours, baseline, unit);
	const ratio = ratioOfMedians(ours, baseline);
	const [met, target, limit] =
		'atMost' in bound
			? [ratio <= bound.atMost, '≤', bound.atMost]
			: 'below' in bound
				? [ratio < bound.below, '<', bound.below]
				: [ratio >= bound.atLeast, '≥', bound.atLeast];
	// A ratio that rounds onto the limit from the wrong side is shown with one more digit, so "1.00× missed" cannot read.
	const shown = row.ratio === formatRatio(limit) && ratio !== limit ? `${ratio.toFixed(3)}×` : row.ratio;
	return { ...row, ratio: shown, target: `${target} ${limit.toFixed(2)}×`, verdict: met ? 'met' : 'missed' };
}

export interface Check {
	what: string;
	passed: boolean;
	detail: string;
}

export interface SectionReport {
	id: string;
	title: string;
	rows: Row[];
	/** Correctness checks made along the way (counts, none lost, none doubled); not timings. */
	checks: Check[];
	notes: string[];
	/** Every sample and setting, for the JSON report. */
	data: unknown;
	error?: string;
}

export interface BenchReport {
	startedAt: string;
	durationSeconds: number;
	machine: MachineInfo;
	mode: 'full' | 'quick';
	sections: SectionReport[];
}

const VERDICT_TEXT: Record<Verdict, string> = { met: 'met', missed: '**missed**', info: '' };

export function renderMarkdown(report: BenchReport): string {
	const lines = [
		`# Benchmarks — n8n-nodes-booking-service`,
		'',
		`${report.startedAt}, ${report.mode} run, ${report.durationSeconds} s. Machine: ${machineLine(report.machine)}.`,
		'',
		'Median [min–max] of the measured runs (after warm-up); ratios are ours ÷ baseline of the medians, measured side by side in this run.',
		'',
		'| # | Measure | Ours | Baseline | Ratio | Target |',
		'|---|---|---|---|---|---|',
	];
	for (const section of report.sections) {
		if (section.error !== undefined) {
			lines.push(`| ${sectionNumber(section)} | ${section.title} | failed: ${escape(section.error.split('\n')[0])} | | | |`);
		}
		for (const row of section.rows) {
			const target = row.target === '—' ? '—' : `${row.target} ${VERDICT_TEXT[row.verdict]}`.trim();
			lines.push(
				`| ${row.section} | ${escape(row.measure)} | ${row.ours} | ${row.baseline} | ${row.ratio} | ${target} |`,
			);
		}
	}
	const checks = report.sections.flatMap((section) => section.checks);
	if (checks.length > 0) {
		lines.push('', 'Checks:', '');
		for (const check of checks) lines.push(`- ${check.passed ? 'ok' : '**FAILED**'} — ${check.what}: ${check.detail}`);
	}
	const notes = report.sections.filter((section) => section.notes.length > 0);
	if (notes.length > 0) {
		lines.push('', 'Notes:', '');
		for (const section of notes) for (const note of section.notes) lines.push(`- (${sectionNumber(section)}) ${note}`);
	}
	return `${lines.join('\n')}\n`;
}

function sectionNumber(section: SectionReport): string {
	return String(section.rows[0]?.section ?? section.id);
}

function escape(text: string): string {
	return text.replaceAll('|', '\\|');
}

/** Writes `<dir>/bench-<time>.{md,json}` and `<dir>/latest.{md,json}`; returns the Markdown path. */
export function writeReport(dir: string, report: BenchReport, markdown: string): string {
	mkdirSync(dir, { recursive: true });
	const stamp = report.startedAt.replaceAll(':', '-').replace(/\.\d+Z$/, 'Z');
	const json = `${JSON.stringify(report, null, 2)}\n`;
	for (const base of [`bench-${stamp}`, 'latest']) {
		writeFileSync(join(dir, `${base}.md`), markdown);
		writeFileSync(join(dir, `${base}.json`), json);
	}
	return join(dir, `bench-${stamp}.md`);
}
