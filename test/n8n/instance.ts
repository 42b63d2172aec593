// Starts a real n8n process (installed by ./install.ts) on 127.0.0.1 with this repository's package installed the way
// users get it, and returns a client for it (./client.ts) plus stop().
//
// How the package gets into n8n: `npm pack` of the repository, unpacked into <userFolder>/.n8n/nodes/node_modules the
// way n8n's own community-package install does it (community-packages.service.js, downloadPackage: `npm pack`,
// `tar -x --strip-components=1`, dev/peer/optional dependencies dropped from package.json). Not a folder install
// (a symlink), because:
// - the tarball holds exactly the files users get (package.json `files`), so a file missing from it fails here;
// - a symlinked package resolves `n8n-workflow` from this repository's node_modules (our devDependency copy) instead
//   of n8n's own copy (n8n puts its module paths on NODE_PATH, which only a package without its own copy falls
//   back to);
// and like any install under .n8n/nodes it gives the production type names (`n8n-nodes-booking-service.…`, not
// `CUSTOM.…`). Packing again at every start picks up the latest `npm run build` without reinstalling n8n.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnN8nProcess, waitUntilReady } from './process.ts';
import { connectN8n, createApiKey, login, type N8nClient, type N8nConnection, type Owner } from './client.ts';
import {
	DURABLE_SCHEDULER_ENV,
	ensureN8nInstalled,
	findNode24,
	findNpmCli,
	N8N_CACHE_DIR,
	N8N_HARNESS,
	N8N_SCHEDULER,
	npmEnv,
	packPackage,
	tail,
} from './install.ts';

/** Fixed, so that credentials in a kept user folder stay readable across restarts; it protects only test data. */
const ENCRYPTION_KEY = 'n8n-nodes-booking-service-local-test-key';
const LOOPBACK = '127.0.0.1';

export interface StartN8nOptions {
	/**
	 * Folder of the package to install: the repository root, built (`dist/` present). Without it n8n starts with no
	 * community package, for a test that installs one through n8n itself.
	 */
	packageDir?: string;
	/** N8N_USER_FOLDER to use. Default: a new temporary folder, removed by stop(). A given folder is kept. */
	userFolder?: string;
	/** Extra environment for n8n (wins over the defaults here). */
	env?: Record<string, string>;
	/** Port for n8n's web server, if it is free (otherwise a free one is picked). Default: any free port. */
	preferredPort?: number;
	/** Time allowed from spawn to ready, API key included. Default 2 min. */
	startTimeoutMs?: number;
	/** Where n8n's output goes (overwritten). Default: n8n.log in the user folder, so removed by stop(). */
	logFile?: string;
	/** Base of the Production and Test URLs n8n builds (WEBHOOK_URL), e.g. a proxy's. Default: n8n's own address. */
	webhookUrl?: string;
}

export interface N8nInstance extends N8nClient {
	/** The plain data a client in another process needs (see connectN8n). */
	connection: N8nConnection;
	pid: number;
	/** Milliseconds from spawning n8n to ready (readiness answered, owner logged in, API key made). */
	startMs: number;
	/** Settles when the n8n process exits, for whatever reason, with a description of how. */
	exited: Promise<string>;
	/** Stops n8n (its whole process group) and removes the temporary user folder. Safe to call twice. */
	stop(): Promise<void>;
}

/** bcrypt from the bcryptjs that n8n ships (and checks passwords with): not a dependency of this package. */
function bcryptHash(password: string): string {
	const requireFromN8n = createRequire(join(N8N_CACHE_DIR, 'node_modules', 'n8n', 'package.json'));
	const bcrypt = requireFromN8n('bcryptjs') as { hashSync(password: string, rounds: number): string };
	return bcrypt.hashSync(password, 10);
}

/**
 * Packs `packageDir` and unpacks it into `<userFolder>/.n8n/nodes` as n8n's community-package install does.
 * Returns the package's name and version.
 */
export function installPackageInto(userFolder: string, packageDir: string): { name: string; version: string } {
	const node = findNode24();
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	const { file: tarball, name, version, files } = packPackage(packageDir, nodesDir);
	if (!files.some((file) => file.startsWith('dist/'))) {
		throw new Error(`the package in ${packageDir} has no dist/: run \`npm run build\` first`);
	}
	const target = join(nodesDir, 'node_modules', name);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(target, { recursive: true });
	const untar = spawnSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { encoding: 'utf8' });
	rmSync(tarball, { force: true });
	if (untar.status !== 0) throw new Error(`could not unpack ${tarball}: ${untar.stderr}`);

	const packageJsonFile = join(target, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...packageJson } = JSON.parse(
		readFileSync(packageJsonFile, 'utf8'),
	);
	writeFileSync(packageJsonFile, JSON.stringify(packageJson, null, 2));
	if (Object.keys(packageJson.dependencies ?? {}).length > 0) {
		// The package is meant to have no runtime dependencies; should it get some, install them as n8n would.
		const install = spawnSync(
			node.nodeBin,
			[
				findNpmCli(),
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: target, env: npmEnv(node), encoding: 'utf8', timeout: 300_000 },
		);
		if (install.status !== 0) throw new Error(`npm install of ${name}'s dependencies failed:\n${install.stderr}`);
	}
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [name]: version } }, null, 2),
	);
	return { name, version };
}

/**
 * The environment every n8n process of this harness gets: loopback only, telemetry and banners off, the fixed
 * encryption key, its own task-broker port, and `webhookUrl` as the base of the URLs it builds for triggers.
 */
export async function n8nEnvironment(settings: {
	userFolder: string;
	port: number;
	webhookUrl: string;
}): Promise<NodeJS.ProcessEnv> {
	const installation = await ensureN8nInstalled();
	let brokerPort = await freePort();
	while (brokerPort === settings.port) brokerPort = await freePort();
	return {
		// npm_* variables of an outer `npm run` describe this repository, not n8n. NODE_ENV goes too: vitest sets it to
		// `test`, in which n8n refuses to load nodes; unset is how an npm-installed n8n runs.
		...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|NODE_ENV$)/i.test(name))),
		// The task runner and anything else n8n spawns must run on Node 24 too.
		PATH: [dirname(installation.nodeBin), process.env.PATH ?? ''].join(delimiter),
		N8N_USER_FOLDER: settings.userFolder,
		N8N_PORT: String(settings.port),
		N8N_LISTEN_ADDRESS: LOOPBACK,
		N8N_HOST: LOOPBACK,
		N8N_PROTOCOL: 'http',
		N8N_WEBHOOK_URL: settings.webhookUrl,
		// n8n 1.x reads only this one.
		WEBHOOK_URL: settings.webhookUrl,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		// Each process needs its own task-broker port (default 5679), or a second one fails to start.
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: LOOPBACK,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		// Plain http on loopback: with a Secure cookie a browser on http://127.0.0.1 could not log in.
		N8N_SECURE_COOKIE: 'false',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
		// Every process of one n8n (main, worker, webhook) runs polling triggers on the same scheduler.
		...(N8N_SCHEDULER === 'durable' ? DURABLE_SCHEDULER_ENV : {}),
	};
}

export async function startN8n(options: StartN8nOptions): Promise<N8nInstance> {
	const installation = await ensureN8nInstalled();
	const ownsUserFolder = options.userFolder === undefined;
	const userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'n8n-booking-'));
	try {
		if (options.packageDir) installPackageInto(userFolder, options.packageDir);
	} catch (error) {
		if (ownsUserFolder) rmSync(userFolder, { recursive: true, force: true });
		throw error;
	}

	const port = await freePort(options.preferredPort);
	const baseUrl = `http://${LOOPBACK}:${port}`;
	const webhookUrl = options.webhookUrl ?? `${baseUrl}/`;
	const owner: Owner = { email: 'owner@example.com', password: 'Local-test-owner-1' };
	const logFile = options.logFile ?? join(userFolder, 'n8n.log');
	const env: NodeJS.ProcessEnv = {
		...(await n8nEnvironment({ userFolder, port, webhookUrl })),
		N8N_EDITOR_BASE_URL: baseUrl,
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: owner.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: 'Local',
		N8N_INSTANCE_OWNER_LAST_NAME: 'Owner',
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(owner.password),
		...options.env,
	};

	const started = Date.now();
	const n8nProcess = spawnN8nProcess(installation, ['start'], { cwd: userFolder, env, logFile });
	const { exited } = n8nProcess;
	let stopping: Promise<void> | undefined;
	const stop = () => {
		stopping ??= (async () => {
			await n8nProcess.stop();
			if (ownsUserFolder) rmSync(userFolder, { recursive: true, force: true });
		})();
		return stopping;
	};
	// Should this process end without stop() (a crash, process.exit, Ctrl-C while n8n starts), the folder goes too.
	if (ownsUserFolder) n8nProcess.onForcedExit(() => rmSync(userFolder, { recursive: true, force: true }));

	try {
		const deadline = started + (options.startTimeoutMs ?? 120_000);
		await waitUntilReady(`${baseUrl}/healthz/readiness`, deadline, n8nProcess.exitDescription);
		// n8n 2.41 sets the owner up from N8N_INSTANCE_OWNER_*; 1.x and 2.16 know no such variables and ask once over REST.
		if (!N8N_HARNESS.ownerFromEnv) await setUpOwner(baseUrl, owner, deadline);
		const cookie = await login(baseUrl, owner);
		const apiKey = await createApiKey(baseUrl, cookie);
		const connection: N8nConnection = { baseUrl, webhookUrl, apiKey, owner, cookie, userFolder, logFile };
		return {
			...connectN8n(connection),
			connection,
			pid: n8nProcess.pid,
			startMs: Date.now() - started,
			exited,
			stop,
		};
	} catch (error) {
		// Read the log before stop() removes the folder it is in.
		const log = tail(logFile, 60);
		await stop();
		const reason = error instanceof Error ? error.message : String(error);
		throw new Error(`n8n did not start: ${reason}\n--- last lines of n8n's log ---\n${log}`);
	}
}

/**
 * n8n 1.x: the owner set-up the editor shows on first start. Its REST routes come up a moment after readiness (404
 * until then); a restart on the same database answers 400 "already setup".
 */
async function setUpOwner(baseUrl: string, owner: Owner, deadline: number): Promise<void> {
	for (;;) {
		const response = await fetch(`${baseUrl}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ email: owner.email, password: owner.password, firstName: 'Local', lastName: 'Owner' }),
		});
		const text = await response.text();
		if (response.ok || (response.status === 400 && /already setup/i.test(text))) return;
		if (response.status !== 404 || Date.now() > deadline) {
			throw new Error(`POST /rest/owner/setup answered ${response.status}: ${text.slice(0, 300)}`);
		}
		await sleep(250);
	}
}

