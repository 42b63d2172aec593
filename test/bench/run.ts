/**
 * `npm run bench` (= `npm run build && node test/bench/run.ts`): measures the package against the raw limit and
 * against what users would use instead, as ratios measured side by side in one run, and writes a short report
 * (Markdown table + JSON) to .bench/ (git-ignored). See test/bench/README.md.
 *
 *   node test/bench/run.ts [--only=return-all,http-request,verify,deliveries,package,polling] [--quick] [--profile]
 *                          [--dist=<folder inside the repository>] [--n8n-env=NAME=value …]
 *
 * No figure is asserted: the exit status is 1 only when a section failed or a correctness check (item counts,
 * executions lost or doubled) did not hold; a missed target is reported, not failed.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import type { BenchContext, Section } from './context.ts';
import { deliveriesSection } from './n8n-deliveries.ts';
import { httpRequestSection } from './http-request.ts';
import { describeMachine } from './machine.ts';
import type { N8nBench } from './n8n.ts';
import { startN8nBench } from './n8n.ts';
import { packageSection } from './package-cost.ts';
import { pollingSection } from './polling.ts';
import { queueSection } from './queue.ts';
import type { SimulatorProcess } from './processes.ts';
import { killChildren, progress, REPO_ROOT, REPORT_DIR, startSimulatorProcess } from './processes.ts';
import { renderProfileSummary, summarizeProfile } from './profile-summary.ts';
import type { BenchReport, SectionReport } from './report.ts';
import { renderMarkdown, writeReport } from './report.ts';
import { returnAllSection } from './return-all.ts';
import { verifySection } from './verify.ts';

/** 1 Return All, 2 HTTP Request node, 3 verification, 4 deliveries through n8n, 5 package, 6 polling trigger. */
const SECTIONS: Section[] = [
	returnAllSection,
	httpRequestSection,
	verifySection,
	deliveriesSection,
	packageSection,
	pollingSection,
	queueSection,
];
/**
 * Past this, counted from a section's start, the section starts no new measured runs (it reports what it has), so a
 * full run measures every section and still ends by itself. A cold n8n install (~5 min, once) and queue mode's
 * Postgres and Redis start inside the first section that needs them, and take from its budget.
 */
const SECTION_BUDGET_MS = 10 * 60_000;

const { values } = parseArgs({
	options: {
		only: { type: 'string' },
		quick: { type: 'boolean', default: false },
		profile: { type: 'boolean', default: false },
		dist: { type: 'string' },
		'n8n-env': { type: 'string', multiple: true },
		help: { type: 'boolean', default: false },
	},
	strict: true,
});

if (values.help) {
	console.log(
		'usage: node test/bench/run.ts [--only=<names>] [--quick] [--profile] [--dist=<folder>] [--n8n-env=NAME=value …]\n' +
			`sections: ${SECTIONS.map((section) => section.id).join(', ')}`,
	);
	process.exit(0);
}

const wanted = values.only === undefined ? SECTIONS.map((section) => section.id) : values.only.split(',').map((name) => name.trim());
const unknown = wanted.filter((name) => !SECTIONS.some((section) => section.id === name));
if (unknown.length > 0) {
	console.error(`unknown section(s): ${unknown.join(', ')}; known: ${SECTIONS.map((section) => section.id).join(', ')}`);
	process.exit(2);
}
if (values.dist !== undefined) {
	// Workers inherit it; the built files must sit inside the repository so that they resolve n8n-workflow from it.
	process.env.BENCH_DIST_DIR = resolve(values.dist);
}

const n8nEnv = Object.fromEntries(
	(values['n8n-env'] ?? []).map((pair) => {
		const separator = pair.indexOf('=');
		if (separator < 1) {
			console.error(`--n8n-env takes NAME=value, not "${pair}"`);
			process.exit(2);
		}
		return [pair.slice(0, separator), pair.slice(separator + 1)];
	}),
);

const startedAt = new Date();
const machine = describeMachine();
const stamp = startedAt.toISOString().replaceAll(':', '-').replace(/\.\d+Z$/, 'Z');
const profileDir = values.profile ? join(REPORT_DIR, 'profiles', stamp) : undefined;

let simulator: Promise<SimulatorProcess> | undefined;
let n8n: Promise<N8nBench> | undefined;
const context: BenchContext = {
	quick: values.quick,
	profileDir,
	deadline: Date.now() + SECTION_BUDGET_MS,
	simulator: () => (simulator ??= startSimulatorProcess()),
	n8n: async () =>
		(n8n ??= startN8nBench(
			await context.simulator(),
			profileDir === undefined ? undefined : join(profileDir, 'n8n'),
			n8nEnv,
		)),
};

async function shutdown(): Promise<void> {
	const stops: Array<Promise<void>> = [];
	if (n8n !== undefined) stops.push(n8n.then((instance) => instance.stop(), () => {}));
	if (simulator !== undefined) stops.push(simulator.then((sim) => sim.stop(), () => {}));
	await Promise.all(stops);
}

let interrupted = false;
process.once('SIGINT', () => {
	interrupted = true;
	progress('interrupted: stopping n8n and the simulator');
	void shutdown().finally(() => {
		killChildren();
		process.exit(130);
	});
});

progress(`machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}; sections: ${wanted.join(', ')}${values.quick ? ' (quick)' : ''}`);
const sections: SectionReport[] = [];
try {
	for (const section of SECTIONS.filter((candidate) => wanted.includes(candidate.id))) {
		if (interrupted) break;
		const sectionStarted = Date.now();
		context.deadline = sectionStarted + SECTION_BUDGET_MS;
		progress(`${section.id}: ${section.title}`);
		try {
			sections.push(await section.run(context));
		} catch (error) {
			const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
			progress(`${section.id} failed: ${message}`);
			sections.push({ id: section.id, title: section.title, rows: [], checks: [], notes: [], data: null, error: message });
		}
		progress(`${section.id}: done in ${Math.round((Date.now() - sectionStarted) / 1000)} s`);
	}
} finally {
	await shutdown();
}

const report: BenchReport = {
	startedAt: startedAt.toISOString(),
	durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
	machine,
	mode: values.quick ? 'quick' : 'full',
	sections,
};
let markdown = renderMarkdown(report);
if (profileDir !== undefined) markdown += profileAppendix(profileDir);
const file = writeReport(REPORT_DIR, report, markdown);
console.log(`\n${markdown}`);
progress(`report: ${file.replace(`${REPO_ROOT}/`, '')} (and .bench/latest.md, .bench/latest.json)`);

const failed = sections.some((section) => section.error !== undefined || section.checks.some((check) => !check.passed));
process.exit(failed ? 1 : 0);

/** With --profile: the top of each worker's CPU profile, so the report says where the time went. */
function profileAppendix(dir: string): string {
	const lines = ['', '## CPU profiles', '', `Written to \`${dir.replace(`${REPO_ROOT}/`, '')}\`; summarized with test/bench/profile-summary.ts.`, ''];
	for (const sub of readdirSync(dir)) {
		const folder = join(dir, sub);
		if (!statSync(folder).isDirectory()) continue;
		for (const name of readdirSync(folder).filter((entry) => entry.endsWith('.cpuprofile'))) {
			lines.push(`### ${sub}/${name}`, '', '```', renderProfileSummary(summarizeProfile(join(folder, name), { top: 15 })), '```', '');
		}
	}
	return `${lines.join('\n')}\n`;
}
