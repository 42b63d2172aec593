/**
 * Where a delivery's time goes in n8n, per variant of section 4 or 7: the CPU profile n8n wrote with --profile, cut
 * into the spans in which each variant's measured runs were under way (RunOutcome.monotonicUs, the clock V8 stamps
 * profiles with), each sample put into the first category its stack matches from the innermost frame out, then
 * divided by the deliveries of those runs.
 *
 *   node test/bench/profile-windows.ts <report.json> <section id> <file.cpuprofile> [--functions=<a>,<b>]
 *
 * With --functions, it lists instead the functions whose self time per delivery differs most between variants a and
 * b (e.g. trigger,calComTrigger): where one costs n8n more than the other.
 *
 * The profile samples n8n's main thread only: time in `isolate: …` is that thread creating, entering (and waiting
 * for) expression isolates; the isolates' own threads are in the bench's CPU rows (process-cpu.ts), not here.
 */
import { readFileSync } from 'node:fs';
import type { CpuProfile, ProfileNode } from './profile-summary.ts';

type Frame = ProfileNode['callFrame'];

/** Innermost match wins, so a category nested in another is found first. */
const CATEGORIES: Array<[string, (frame: Frame) => boolean]> = [
	['our package (webhook(), all it calls)', (f) => f.url.includes('n8n-nodes-booking-service/dist/')],
	["Cal.com Trigger's webhook()", (f) => f.url.includes('/nodes/Cal/')],
	["Webhook node's webhook()", (f) => f.url.includes('/nodes/Webhook/')],
	['isolate: create', (f) => f.functionName === 'createBridge' && f.url.includes('n8n-workflow')],
	['isolate: dispose', (f) => f.functionName === 'dispose' && f.url.includes('isolated-vm-bridge')],
	['isolate: acquire/initialize', (f) => /^(acquireIsolate|releaseIsolate|initialize|acquire)$/.test(f.functionName) && f.url.includes('expression')],
	['expression evaluated per request (start node version 1)', (f) => f.functionName === 'parseRequestBody'],
	['database (sqlite3 / pg driver)', (f) => /node_modules\/(sqlite3|pg|pg-protocol)\//.test(f.url)],
	['database (typeorm)', (f) => f.url.includes('@n8n/typeorm')],
	['execution data (de)serialised (flatted, persistence)', (f) => /node_modules\/flatted\/|execution-persistence|parse-flatted/.test(f.url)],
	['request body parsed (body-parser)', (f) => f.url.includes('/middlewares/body-parser')],
	['queue (Redis, Bull)', (f) => /node_modules\/(ioredis|bull)\//.test(f.url)],
	['execution (runner, engine, hooks)', (f) => /workflow-runner|workflow-execute|execution-lifecycle|active-executions|scaling\//.test(f.url)],
	['webhook phase (rest of n8n)', (f) => /webhooks\//.test(f.url) && f.url.includes('/n8n/dist/')],
	['HTTP routing (express; in a single n8n also the bench counting executions)', (f) => /public-api|\.controller\.js|node_modules\/(express|router)\//.test(f.url)],
];

/** A function as the profile names it, with where it is: `name file:line`, the path cut after node_modules/. */
function functionLabel(frame: Frame): string {
	const file = frame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\//, '');
	return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

export function attributeWindows(
	profile: CpuProfile,
	windows: Array<{ variant: string; start: number; end: number; deliveries: number }>,
	by: 'category' | 'function' = 'category',
): Map<string, Map<string, number>> {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const categoryOf = new Map<number, string>();
	const classify = (id: number): string => {
		const known = categoryOf.get(id);
		if (known !== undefined) return known;
		const leaf = byId.get(id)!.callFrame.functionName;
		let found = leaf === '(garbage collector)' ? 'garbage collection' : leaf === '(program)' ? 'V8 / native, no JS frame' : 'other';
		for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
			const hit = CATEGORIES.find(([, test]) => test(byId.get(current!)!.callFrame));
			if (hit !== undefined) {
				found = hit[0];
				break;
			}
		}
		categoryOf.set(id, found);
		return found;
	};
	const msByVariant = new Map<string, Map<string, number>>();
	let time = profile.startTime;
	for (let index = 0; index < profile.samples.length; index++) {
		time += profile.timeDeltas[index] ?? 0;
		const id = profile.samples[index];
		if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
		const window = windows.find((candidate) => time >= candidate.start && time <= candidate.end);
		if (window === undefined) continue;
		const table = msByVariant.get(window.variant) ?? new Map<string, number>();
		msByVariant.set(window.variant, table);
		const category = by === 'category' ? classify(id) : functionLabel(byId.get(id)!.callFrame);
		table.set(category, (table.get(category) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
	}
	// Per delivery.
	for (const [variant, table] of msByVariant) {
		const deliveries = windows.filter((window) => window.variant === variant).reduce((sum, window) => sum + window.deliveries, 0);
		for (const [category, ms] of table) table.set(category, ms / deliveries);
	}
	return msByVariant;
}

if (import.meta.main) {
	const args = process.argv.slice(2);
	const flags = args.filter((arg) => arg.startsWith('--'));
	const compared = flags[0]?.startsWith('--functions=') ? flags[0].slice('--functions='.length).split(',').map((name) => name.trim()) : undefined;
	const [reportFile, sectionId, profileFile] = args.filter((arg) => !arg.startsWith('--'));
	if (profileFile === undefined || flags.length > (compared === undefined ? 0 : 1) || (compared !== undefined && compared.length !== 2)) {
		console.error('usage: node test/bench/profile-windows.ts <report.json> <section id> <file.cpuprofile> [--functions=<a>,<b>]');
		process.exit(2);
	}
	const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
		sections: Array<{ id: string; data: { outcomes: Record<string, Array<{ deliveries: number; monotonicUs?: { start: number; end: number } }>> } }>;
	};
	const section = report.sections.find((candidate) => candidate.id === sectionId);
	if (section === undefined) throw new Error(`no section ${sectionId} in ${reportFile}`);
	const windows = Object.entries(section.data.outcomes).flatMap(([variant, runs]) =>
		runs.flatMap((run) => (run.monotonicUs === undefined ? [] : [{ variant, ...run.monotonicUs, deliveries: run.deliveries }])),
	);
	const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
	if (compared === undefined) printCategories(attributeWindows(profile, windows));
	else printFunctionDifferences(attributeWindows(profile, windows, 'function'), compared[0], compared[1]);
}

function printCategories(table: Map<string, Map<string, number>>): void {
	const variants = [...table.keys()];
	const categories = [...new Set(variants.flatMap((variant) => [...table.get(variant)!.keys()]))];
	const cell = (variant: string, category: string) => (table.get(variant)!.get(category) ?? 0).toFixed(1);
	const total = (variant: string) => [...table.get(variant)!.values()].reduce((sum, ms) => sum + ms, 0).toFixed(1);
	console.log(`main-thread ms per delivery (samples inside each variant's measured runs)\n`);
	console.log(`| category | ${variants.join(' | ')} |\n|---|${variants.map(() => '---:').join('|')}|`);
	for (const category of categories.sort((a, b) => Number(cell(variants[0], b)) - Number(cell(variants[0], a)))) {
		console.log(`| ${category} | ${variants.map((variant) => cell(variant, category)).join(' | ')} |`);
	}
	console.log(`| **total busy** | ${variants.map(total).join(' | ')} |`);
}

function printFunctionDifferences(table: Map<string, Map<string, number>>, a: string, b: string, top = 25): void {
	const [first, second] = [table.get(a), table.get(b)];
	if (first === undefined || second === undefined) {
		console.error(`--functions takes two of the variants measured in this profile: ${[...table.keys()].join(', ')}`);
		process.exit(2);
	}
	const labels = [...new Set([...first.keys(), ...second.keys()])];
	const difference = (label: string) => (first.get(label) ?? 0) - (second.get(label) ?? 0);
	const sum = (variant: Map<string, number>) => [...variant.values()].reduce((total, ms) => total + ms, 0);
	console.log(
		`main-thread self time per delivery: ${a} ${sum(first).toFixed(2)} ms, ${b} ${sum(second).toFixed(2)} ms, difference ${(sum(first) - sum(second)).toFixed(2)} ms`,
	);
	console.log('(self time: a function\'s own samples, not those of what it calls; "(program)" and "(garbage collector)" are V8\'s)\n');
	console.log(`| function | ${a} ms | ${b} ms | difference |\n|---|---:|---:|---:|`);
	for (const label of labels.sort((x, y) => Math.abs(difference(y)) - Math.abs(difference(x))).slice(0, top)) {
		const cell = (variant: Map<string, number>) => (variant.get(label) ?? 0).toFixed(2);
		console.log(`| ${label} | ${cell(first)} | ${cell(second)} | ${difference(label).toFixed(2)} |`);
	}
}
