/**
 * 5. Package cost: cold `require` of the built nodes and credential, against requiring n8n-workflow alone (each in a
 * fresh Node process), and the size of the tarball npm would publish (`npm pack --dry-run --json`).
 *
 * Three kinds of fresh process, taking turns:
 * - n8n-workflow alone;
 * - our credential and both nodes, cold (they require n8n-workflow themselves, so its cost is inside);
 * - our files after n8n-workflow was already loaded: what loading the package adds inside n8n, which has
 *   n8n-workflow loaded long before it loads community packages.
 * The clock runs inside the child around the require calls only (process start-up is the same for all and is not
 * the package's cost).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import { distDir, progress, REPO_ROOT } from './processes.ts';
import type { SectionReport } from './report.ts';
import { infoRow } from './report.ts';
import { formatNumber, formatSummary, rotate, summarize } from './stats.ts';

const PACKAGE_FILES = [
	'credentials/BookingServiceApi.credentials.js',
	'nodes/BookingService/BookingService.node.js',
	'nodes/BookingServiceTrigger/BookingServiceTrigger.node.js',
];

const KINDS = ['n8nWorkflow', 'packageCold', 'packageAfterN8nWorkflow'] as const;
type Kind = (typeof KINDS)[number];

/** The child's program: require what `kind` says, print the milliseconds the requires took. */
function childProgram(kind: Kind, dist: string): string {
	const files = JSON.stringify(PACKAGE_FILES.map((file) => join(dist, file)));
	const preload = kind === 'packageAfterN8nWorkflow' ? "require('n8n-workflow');" : '';
	const load = kind === 'n8nWorkflow' ? "require('n8n-workflow');" : `for (const file of ${files}) require(file);`;
	return `${preload}const t0 = performance.now(); ${load} process.stdout.write(String(performance.now() - t0));`;
}

function timeRequire(kind: Kind, dist: string): number {
	const child = spawnSync(process.execPath, ['-e', childProgram(kind, dist)], {
		cwd: REPO_ROOT,
		encoding: 'utf8',
		timeout: 30_000,
	});
	const ms = Number(child.stdout);
	if (child.status !== 0 || !Number.isFinite(ms)) {
		throw new Error(`require in a child (${kind}) failed (${child.status ?? child.signal}): ${child.stderr.slice(0, 2_000)}`);
	}
	return ms;
}

interface PackEntry {
	size: number;
	unpackedSize: number;
	entryCount: number;
	filename: string;
	files: Array<{ path: string; size: number }>;
}

/** What `npm pack` would put in the tarball, without writing it; run with this Node so npm's checks agree. */
function dryRunPack(): PackEntry {
	const npmCli = process.env.npm_execpath?.endsWith('npm-cli.js') ? process.env.npm_execpath : undefined;
	const command = npmCli === undefined ? 'npm' : process.execPath;
	const args = [...(npmCli === undefined ? [] : [npmCli]), 'pack', '--dry-run', '--json', '--ignore-scripts'];
	const pack = spawnSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 });
	if (pack.status !== 0) throw new Error(`npm pack --dry-run failed: ${pack.stderr.slice(0, 2_000)}`);
	const [entry] = JSON.parse(pack.stdout) as PackEntry[];
	return entry;
}

export const packageSection: Section = {
	id: 'package',
	title: 'Package cost: cold require and tarball size',
	async run(context: BenchContext): Promise<SectionReport> {
		const dist = distDir();
		const counts = runCounts(context, { warmups: 2, runs: 11 }, { warmups: 1, runs: 5 });
		progress(`package: ${counts.warmups} warm-up + ${counts.runs} fresh processes of each kind`);
		// Warm-up: the files into the OS page cache, so every measured run reads from memory alike.
		for (let index = 0; index < counts.warmups; index++) for (const kind of KINDS) timeRequire(kind, dist);
		const samples: Record<Kind, number[]> = { n8nWorkflow: [], packageCold: [], packageAfterN8nWorkflow: [] };
		for (let index = 0; index < counts.runs && Date.now() < context.deadline; index++) {
			for (const kind of rotate(index, KINDS)) samples[kind].push(timeRequire(kind, dist));
		}
		const workflowOnly = summarize(samples.n8nWorkflow);
		const cold = summarize(samples.packageCold);
		const added = summarize(samples.packageAfterN8nWorkflow);
		const pack = dryRunPack();
		const jsFiles = pack.files.filter((file) => file.path.endsWith('.js'));
		return {
			id: this.id,
			title: this.title,
			rows: [
				infoRow(
					5,
					'Cold require of the credential and both nodes (n8n-workflow included, fresh process) vs require of n8n-workflow alone',
					cold,
					workflowOnly,
					'ms',
				),
				{
					section: 5,
					measure: 'Require of the credential and both nodes with n8n-workflow already loaded (what the package adds inside n8n)',
					ours: formatSummary(added, 'ms'),
					baseline: '—',
					ratio: '—',
					target: '—',
					verdict: 'info',
				},
				{
					section: 5,
					measure: `Packed tarball (${pack.filename})`,
					ours: `${formatNumber(pack.size / 1024)} kB packed, ${formatNumber(pack.unpackedSize / 1024)} kB unpacked, ${pack.entryCount} files (${jsFiles.length} .js)`,
					baseline: '—',
					ratio: '—',
					target: '—',
					verdict: 'info',
				},
			],
			checks: [
				{
					what: 'the tarball holds only dist/, README, LICENSE and package.json',
					passed: pack.files.every((file) => /^(dist\/|README\.md$|LICENSE\.md$|package\.json$)/.test(file.path)),
					detail: pack.files
						.map((file) => file.path)
						.filter((path) => !path.startsWith('dist/'))
						.join(', '),
				},
			],
			notes: [],
			data: { samples, pack: { ...pack, files: pack.files.map((file) => `${file.path} ${file.size}`) } },
		};
	},
};
