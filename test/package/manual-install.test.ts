/**
 * The README's manual install, run as written: the shell blocks of its "Install in n8n" section, read from the README
 * so the two cannot drift, in a throwaway home folder, on Node 20, 22 and 24 (each its own binary, with npm from
 * PATH). It must install this package alone — no peer n8n-workflow and its tree, nothing to compile — and reach no
 * registry (npm's registry is set to a closed loopback port, so any fetch fails the test). The panel does not list
 * such an install, so the README's update (to a newer tarball) and remove commands are run as written too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNode24, nodeOfVersion, packPackage, REPO_ROOT, type NodeBinary } from '../n8n/install.ts';

const PACKAGE = 'n8n-nodes-booking-service';
/** Node 20 as n8n 1.x runs on it, Node 22, and the project's Node 24. */
const NODES: Array<[string, () => NodeBinary]> = [
	['20', () => nodeOfVersion('20.20.2')],
	['22', () => nodeOfVersion('22.23.3')],
	['24', findNode24],
];

/** The ```sh blocks of the README's "Install in n8n" section, unindented. */
function readmeInstallBlocks(): string[] {
	const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
	const section = readme.split(/^## /m).find((part) => part.startsWith('Install in n8n'));
	return [...(section ?? '').matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1].replace(/^ +/gm, ''));
}

/** The README's shell block that installs the tarball into n8n's nodes folder. */
function readmeInstallBlock(): string {
	const block = readmeInstallBlocks().find((text) => text.includes('.n8n/nodes') && text.includes('npm install') && !text.includes('# update'));
	if (!block) throw new Error('README.md: no ```sh block with `npm install` into ~/.n8n/nodes under "## Install in n8n"');
	return block;
}

/** The README's update and remove commands, each with the block's `cd` into the nodes folder before it. */
function readmeUpdateAndRemove(): { update: string; remove: string } {
	const block = readmeInstallBlocks().find((text) => text.includes('# update') && text.includes('# remove'));
	if (!block) throw new Error('README.md: no ```sh block with `# update` and `# remove` lines under "## Install in n8n"');
	const lines = block.trim().split('\n');
	const cd = lines.find((line) => line.startsWith('cd '))!;
	const marked = (mark: string) => `${cd}\n${lines.find((line) => line.endsWith(`# ${mark}`))!.replace(/\s+# \w+$/, '')}`;
	return { update: marked('update'), remove: marked('remove') };
}

/** Requires each file of package.json `n8n` and makes its class, as n8n does; prints how many loaded. */
const LOAD_EVERY_ENTRY = `
const root = process.argv[1];
const { n8n } = require(root + '/package.json');
let loaded = 0;
for (const file of [...n8n.nodes, ...n8n.credentials]) {
	for (const Type of Object.values(require(root + '/' + file))) new Type(), loaded++;
}
console.log('Node ' + process.versions.node + ': ' + loaded + ' loaded');
`;

/** PATH with `node` the Node under test (npm's own script runs on the first `node` on PATH). */
const pathFor = (node: NodeBinary) => [dirname(node.nodeBin), process.env.PATH ?? ''].join(delimiter);

/** Runs a README block as a user's shell would, in `home`, with only the Node under test and no registry. */
function runAsWritten(node: NodeBinary, home: string, script: string) {
	const run = spawnSync('sh', ['-e', '-c', script], {
		cwd: home,
		encoding: 'utf8',
		timeout: 120_000,
		env: {
			HOME: home,
			PATH: pathFor(node),
			npm_config_registry: 'http://127.0.0.1:9/',
			npm_config_fetch_retries: '0',
			npm_config_cache: join(home, '.npm'),
			npm_config_update_notifier: 'false',
		},
	});
	return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** What n8n's nodes folder holds: the packages in its node_modules. */
const installedIn = (nodesFolder: string) =>
	readdirSync(join(nodesFolder, 'node_modules')).filter((name) => !name.startsWith('.'));

let folder: string;
let tarball: { file: string; version: string };
/** The same package one patch version on: the update the README's command installs. */
let newer: { file: string; version: string };

beforeAll(() => {
	folder = mkdtempSync(join(tmpdir(), 'manual-install-'));
	tarball = packPackage(REPO_ROOT, folder);
	const next = join(folder, 'next');
	mkdirSync(next);
	execFileSync('tar', ['xzf', tarball.file, '-C', next]);
	const manifest = JSON.parse(readFileSync(join(next, 'package', 'package.json'), 'utf8'));
	manifest.version = tarball.version.replace(/\d+$/, (patch) => String(Number(patch) + 1));
	writeFileSync(join(next, 'package', 'package.json'), JSON.stringify(manifest, null, 2));
	newer = packPackage(join(next, 'package'), folder);
});

afterAll(() => {
	if (folder) rmSync(folder, { recursive: true, force: true });
});

/**
 * The installed package is `version` and loads on that Node: every node and credential n8n would load, with
 * n8n-workflow from outside the folder, as n8n provides it (n8n puts its own modules on NODE_PATH).
 */
function expectLoaded(node: NodeBinary, nodesFolder: string, version: string): void {
	const installed = JSON.parse(readFileSync(join(nodesFolder, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
	expect(installed.version).toBe(version);
	const load = spawnSync(node.nodeBin, ['-e', LOAD_EVERY_ENTRY, join(nodesFolder, 'node_modules', PACKAGE)], {
		env: { NODE_PATH: join(REPO_ROOT, 'node_modules') },
		encoding: 'utf8',
		timeout: 60_000,
	});
	expect(`${load.stdout}${load.stderr}`.trim()).toBe(`Node ${node.version}: 4 loaded`);
}

describe("the README's manual install of the packed tarball", () => {
	it('names the tarball `npm pack` makes', () => {
		expect(readmeInstallBlock()).toContain(`/path/to/${PACKAGE}-${tarball.version}.tgz`);
	});

	it.each(NODES)('on Node %s installs this package alone, then updates and removes it, without a registry', (_major, nodeOf) => {
		const node = nodeOf();
		const home = mkdtempSync(join(folder, 'home-'));
		const script = readmeInstallBlock().replaceAll('/path/to/', `${dirname(tarball.file)}/`);
		const { status, output } = runAsWritten(node, home, script);
		const nodeOnPath = spawnSync('sh', ['-c', 'node -v'], { env: { PATH: pathFor(node) }, encoding: 'utf8' });

		expect(nodeOnPath.stdout.trim()).toBe(`v${node.version}`);
		expect(status, output).toBe(0);
		expect(output).toMatch(/added 1 package/);
		expect(output).not.toMatch(/EBADENGINE|gyp/);
		const nodesFolder = join(home, '.n8n', 'nodes');
		expect(installedIn(nodesFolder)).toEqual([PACKAGE]);
		expectLoaded(node, nodesFolder, tarball.version);

		const { update, remove } = readmeUpdateAndRemove();
		const updated = runAsWritten(
			node,
			home,
			update.replace('/path/to/', `${dirname(newer.file)}/`).replace('<newer version>', newer.version),
		);
		expect(updated.status, updated.output).toBe(0);
		expect(updated.output).not.toMatch(/EBADENGINE|gyp/);
		expect(installedIn(nodesFolder)).toEqual([PACKAGE]);
		expectLoaded(node, nodesFolder, newer.version);

		const removed = runAsWritten(node, home, remove);
		expect(removed.status, removed.output).toBe(0);
		expect(installedIn(nodesFolder)).toEqual([]);
	});
});
