// A local npm registry (verdaccio) on 127.0.0.1 for tests of installing the package the way users do: verdaccio is
// installed on demand into .cache/verdaccio (git-ignored, never a dependency of the package), and runs without
// uplinks, so it serves only what a test publishes to it and never reaches the internet.
//
// verdaccio 6.10.4 needs Node >= 22 (it runs on the project's Node 24) and the override node-fetch 2.7.0 (its
// `node-fetch@cjs` tag is missing from the registry mirror used here).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { findNode24, findNpmCli, npmEnv, REPO_ROOT } from './install.ts';
import { freePort, spawnProcessGroup } from './process.ts';

const VERDACCIO_VERSION = '6.10.4';
const CACHE_DIR = join(REPO_ROOT, '.cache', 'verdaccio');
const CACHE_PACKAGE_JSON = {
	name: 'verdaccio-cache',
	private: true,
	description: 'the local registry of the community-install e2e test; made by test/n8n/local-registry.ts',
	dependencies: { verdaccio: VERDACCIO_VERSION },
	overrides: { 'node-fetch': '2.7.0' },
};
/**
 * The lockfile of a known-good install, so that every run gets the same 321 packages. To refresh it after changing
 * the version: `npm install --package-lock-only --ignore-scripts` in a folder holding CACHE_PACKAGE_JSON, copied here.
 */
const PINNED_LOCKFILE = join(dirname(fileURLToPath(import.meta.url)), 'verdaccio-lock.json');
const VERDACCIO_BIN = join(CACHE_DIR, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
const MARKER = join(CACHE_DIR, '.installed');

export interface LocalRegistry {
	/** http://127.0.0.1:<port>/ */
	url: string;
	port: number;
	/** Publishes a packed tarball (`npm publish <file>`, no scripts) as an anonymous test user. */
	publish(tarball: string): void;
	stop(): Promise<void>;
}

/** Installs verdaccio into .cache/verdaccio once (about 25 s, 65 MB); later calls return at once. */
export function ensureVerdaccioInstalled(): string {
	const lockfile = readFileSync(PINNED_LOCKFILE, 'utf8');
	const wanted = createHash('sha256').update(JSON.stringify(CACHE_PACKAGE_JSON)).update(lockfile).digest('hex');
	if (existsSync(VERDACCIO_BIN) && existsSync(MARKER) && readFileSync(MARKER, 'utf8') === wanted) return VERDACCIO_BIN;
	mkdirSync(CACHE_DIR, { recursive: true });
	writeFileSync(join(CACHE_DIR, 'package.json'), `${JSON.stringify(CACHE_PACKAGE_JSON, null, 2)}\n`);
	writeFileSync(join(CACHE_DIR, 'package-lock.json'), lockfile);
	const node = findNode24();
	// No install scripts: verdaccio needs none, and none of its dependencies' optional native builds.
	const install = spawnSync(
		node.nodeBin,
		[findNpmCli(), 'ci', '--no-audit', '--no-fund', '--ignore-scripts'],
		{ cwd: CACHE_DIR, env: npmEnv(node), encoding: 'utf8', timeout: 5 * 60_000 },
	);
	if (install.status !== 0 || !existsSync(VERDACCIO_BIN)) {
		throw new Error(`could not install verdaccio into ${CACHE_DIR}:\n${install.stdout}${install.stderr}`);
	}
	writeFileSync(MARKER, wanted);
	return VERDACCIO_BIN;
}

/**
 * Starts verdaccio on a free loopback port with its storage in a new temporary folder (removed by stop()). Tarball
 * URLs in its answers are `https://registry.npmjs.org/…` (VERDACCIO_PUBLIC_URL), as npm's own are, so that a client
 * reaching it through ./registry-proxy.ts fetches tarballs through the proxy too.
 */
export async function startLocalRegistry(options: { logFile: string }): Promise<LocalRegistry> {
	const bin = ensureVerdaccioInstalled();
	const folder = mkdtempSync(join(tmpdir(), 'verdaccio-'));
	const config = join(folder, 'config.yaml');
	writeFileSync(
		config,
		[
			`storage: ${join(folder, 'storage')}`,
			'auth:',
			`  htpasswd: { file: ${join(folder, 'htpasswd')}, max_users: 1 }`,
			'uplinks: {}',
			'packages:',
			"  '**': { access: $all, publish: $authenticated, unpublish: $authenticated }",
			'web: { enable: false }',
			'log: { type: stdout, format: pretty, level: warn }',
			'',
		].join('\n'),
	);
	const port = await freePort();
	const node = findNode24();
	const verdaccio = spawnProcessGroup(node.nodeBin, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
		env: { PATH: process.env.PATH ?? '', HOME: folder, VERDACCIO_PUBLIC_URL: 'https://registry.npmjs.org/' },
		logFile: options.logFile,
		graceMs: 5_000,
	});
	const url = `http://127.0.0.1:${port}/`;
	const stop = async () => {
		await verdaccio.stop();
		rmSync(folder, { recursive: true, force: true });
	};
	try {
		const token = await addUser(url, verdaccio.exitDescription);
		return {
			url,
			port,
			publish: (tarball) => {
				const published = spawnSync(
					node.nodeBin,
					[
						findNpmCli(),
						'publish',
						tarball,
						'--ignore-scripts',
						`--registry=${url}`,
						`--//127.0.0.1:${port}/:_authToken=${token}`,
						`--cache=${join(folder, 'npm-cache')}`,
					],
					{ cwd: folder, env: npmEnv(node), encoding: 'utf8', timeout: 120_000 },
				);
				if (published.status !== 0) throw new Error(`npm publish ${tarball} failed:\n${published.stderr}`);
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}

/** Waits for verdaccio to answer, then creates its one user (what `npm adduser` does) and returns the token. */
async function addUser(url: string, exited: () => string | undefined): Promise<string> {
	const deadline = Date.now() + 60_000;
	for (;;) {
		if (exited()) throw new Error(`verdaccio ${exited()} before it was ready`);
		try {
			const response = await fetch(`${url}-/user/org.couchdb.user:tests`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'tests', password: 'local-registry-tests' }),
				signal: AbortSignal.timeout(5_000),
			});
			const body = (await response.json()) as { token?: string };
			if (response.ok && body.token) return body.token;
			throw new Error(`verdaccio refused the test user: ${response.status} ${JSON.stringify(body)}`);
		} catch (error) {
			if (error instanceof Error && error.message.startsWith('verdaccio refused')) throw error;
			if (Date.now() > deadline) throw new Error(`verdaccio did not answer at ${url} in 60 s`);
			await sleep(250);
		}
	}
}
