// `npm run scan`: n8n's verified-community-node checks, as n8n runs them, on the source and on the packed tarball.
//
// n8n's scanner (@n8n/scan-community-package) only scans published packages from its CLI, but it exports its
// analyzer: this installs it on first use into .cache/scan (git-ignored; --ignore-scripts, as n8n's own installer
// does) and runs `analyzePackage` twice — on the repository with the scanner's own source patterns (package.json,
// nodes/, credentials/), and on `npm pack`'s tarball, unpacked. Inline eslint-disable comments count for nothing
// there (the scanner turns them off), so a pass means the shipped code itself passes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { findNode24, findNpmCli, npmEnv, REPO_ROOT } from '../n8n/install.ts';

const SCANNER = '@n8n/scan-community-package';
const SCANNER_VERSION = '0.32.0';
const SCAN_DIR = join(REPO_ROOT, '.cache', 'scan');

interface Analysis {
	passed: boolean;
	message?: string;
	details?: string;
}
type Analyzer = (dir: string, patterns?: string[]) => Promise<Analysis>;

function run(command: string, args: string[], cwd: string): string {
	const result = spawnSync(command, args, { cwd, env: npmEnv(findNode24()), encoding: 'utf8', timeout: 5 * 60_000 });
	if (result.status !== 0) throw new Error(`${args.join(' ')} failed:\n${result.stdout}${result.stderr}`);
	return result.stdout;
}

function ensureScanner(): string {
	const installed = join(SCAN_DIR, 'node_modules', SCANNER, 'package.json');
	const requireFromScan = createRequire(join(SCAN_DIR, 'package.json'));
	if (existsSync(installed) && (requireFromScan(installed) as { version: string }).version === SCANNER_VERSION) {
		return join(SCAN_DIR, 'node_modules', SCANNER, 'scanner', 'scanner.mjs');
	}
	mkdirSync(SCAN_DIR, { recursive: true });
	writeFileSync(join(SCAN_DIR, 'package.json'), '{ "private": true }\n');
	process.stderr.write(`[scan] installing ${SCANNER}@${SCANNER_VERSION} into ${SCAN_DIR}\n`);
	const node = findNode24();
	run(node.nodeBin, [findNpmCli(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', `${SCANNER}@${SCANNER_VERSION}`], SCAN_DIR);
	return join(SCAN_DIR, 'node_modules', SCANNER, 'scanner', 'scanner.mjs');
}

const scanner = (await import(pathToFileURL(ensureScanner()).href)) as {
	analyzePackage: Analyzer;
	SOURCE_FILE_PATTERNS: string[];
};

const work = mkdtempSync(join(tmpdir(), 'scan-'));
let failed = false;
try {
	const node = findNode24();
	run(node.nodeBin, [findNpmCli(), 'pack', '--pack-destination', work], REPO_ROOT);
	const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
	if (tarball === undefined) throw new Error('npm pack made no tarball');
	run('tar', ['xzf', tarball], work);

	for (const [what, dir, patterns] of [
		['source (package.json, nodes/, credentials/)', REPO_ROOT, scanner.SOURCE_FILE_PATTERNS],
		[`packed tarball ${tarball}`, join(work, 'package'), undefined],
	] as const) {
		const result = await scanner.analyzePackage(dir, patterns ? [...patterns] : undefined);
		console.log(`${result.passed ? 'passed' : 'FAILED'}: ${what}${result.message ? ` — ${result.message}` : ''}`);
		if (result.details) console.log(result.details);
		failed ||= !result.passed;
	}
} finally {
	rmSync(work, { recursive: true, force: true });
}
console.log(`${failed ? 0 : 2} passed, ${failed ? 1 : 0} failed (n8n community package scan)`);
process.exit(failed ? 1 : 0);
