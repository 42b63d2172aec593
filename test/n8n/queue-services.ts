// Postgres and Redis for n8n's queue mode, as this machine's own processes on loopback ports: Debian's `postgresql`
// and `redis-server`, installed on first use with apt-get (as root, or through passwordless sudo as on GitHub's hosted
// runners). Nothing is registered with the system: each server runs in the foreground of its own process group with
// its data in a folder the caller chooses, and stop() ends it. Measured recipe: ../shared/n8n-runtime-facts.md, "Queue mode".
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnProcessGroup, type ProcessGroup } from './process.ts';

const LOOPBACK = '127.0.0.1';
const POSTGRES_ROOT = '/usr/lib/postgresql';
const REDIS_SERVER = '/usr/bin/redis-server';
/** Both shut down in well under a second; past this they are killed. */
const SERVER_GRACE_MS = 10_000;
/** The database n8n uses, and the superuser initdb makes (so the name is the same whoever runs this). */
export const DATABASE = 'n8n';
export const DATABASE_USER = 'n8n';

export interface QueueServices {
	postgres: { host: string; port: number };
	redis: { host: string; port: number };
	/** The environment every n8n process of the topology needs to find them (and to be in queue mode). */
	n8nEnv: Record<string, string>;
	/** Runs one SQL statement in n8n's database (psql, unaligned, no headers); returns its output. */
	sql(statement: string): string;
	stop(): Promise<void>;
}

function run(command: string, args: string[], options: { user?: string; timeoutMs?: number } = {}): SpawnSyncReturns<string> {
	// Postgres refuses to run as root: as root, its programs run as the `postgres` user Debian's package makes.
	const [file, argv] =
		options.user === undefined ? [command, args] : ['runuser', ['-u', options.user, '--', command, ...args]];
	return spawnSync(file, argv, { encoding: 'utf8', timeout: options.timeoutMs ?? 120_000 });
}

function postgresBinDir(): string | undefined {
	if (!existsSync(POSTGRES_ROOT)) return undefined;
	const versions = readdirSync(POSTGRES_ROOT)
		.filter((name) => existsSync(join(POSTGRES_ROOT, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length === 0 ? undefined : join(POSTGRES_ROOT, versions[0], 'bin');
}

/**
 * How to run apt-get here: directly as root, through `sudo -n` (never prompts) for a user with passwordless sudo,
 * else undefined. `DEBIAN_FRONTEND` goes through `env` because sudo resets the environment.
 */
export function aptGet(): string[] | undefined {
	const apt = ['env', 'DEBIAN_FRONTEND=noninteractive', 'apt-get'];
	if (process.getuid?.() === 0) return apt;
	const sudo = spawnSync('sudo', ['-n', 'true'], { encoding: 'utf8', timeout: 10_000 });
	return sudo.status === 0 ? ['sudo', '-n', ...apt] : undefined;
}

/** Runs apt-get update and installs Debian's postgresql and redis-server (no-ops for what is installed already). */
export function installQueueServices(): void {
	const apt = aptGet();
	if (apt === undefined) {
		throw new Error(
			'Queue mode needs PostgreSQL and Redis: install Debian\'s packages first (sudo apt-get install postgresql redis-server)',
		);
	}
	process.stderr.write(`[queue] installing Debian packages postgresql and redis-server with ${apt[0]} (about a minute, once)\n`);
	for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'postgresql', 'redis-server']]) {
		const result = spawnSync(apt[0], [...apt.slice(1), ...args], { encoding: 'utf8', timeout: 10 * 60_000 });
		if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed:\n${result.stderr.slice(-2_000)}`);
	}
}

/** Installs Debian's postgresql and redis-server if either is missing; returns Postgres's bin folder. */
export function ensureQueueServicesInstalled(): string {
	let binDir = postgresBinDir();
	if (binDir !== undefined && existsSync(REDIS_SERVER)) return binDir;
	installQueueServices();
	binDir = postgresBinDir();
	if (binDir === undefined || !existsSync(REDIS_SERVER)) throw new Error('postgresql or redis-server missing after apt-get');
	return binDir;
}

async function waitFor(what: string, ready: () => boolean, server: ProcessGroup, limitMs: number): Promise<void> {
	const deadline = Date.now() + limitMs;
	while (!ready()) {
		const exit = server.exitDescription();
		if (exit !== undefined) throw new Error(`${what} ${exit} before it was ready`);
		if (Date.now() > deadline) throw new Error(`${what} was not ready within ${limitMs / 1000} s`);
		await sleep(200);
	}
}

/**
 * Starts a fresh Postgres (initdb into `<dataDir>/postgres`, trust authentication on loopback only, fsync off: test
 * data) and Redis (no persistence), each on a free port, with logs in `dataDir`. `dataDir` must not hold an earlier run.
 */
export async function startQueueServices(dataDir: string): Promise<QueueServices> {
	const binDir = ensureQueueServicesInstalled();
	const asUser = process.getuid?.() === 0 ? 'postgres' : undefined;
	mkdirSync(dataDir, { recursive: true });
	// The postgres user must reach its data folder (mkdtemp makes folders 0700).
	chmodSync(dataDir, 0o755);
	const pgData = join(dataDir, 'postgres');
	mkdirSync(pgData, { mode: 0o700 });
	if (asUser !== undefined) run('chown', [asUser, pgData]);
	const init = run(
		join(binDir, 'initdb'),
		['-D', pgData, `--username=${DATABASE_USER}`, '--auth=trust', '--no-locale', '-E', 'UTF8', '--no-sync'],
		{ user: asUser },
	);
	if (init.status !== 0) throw new Error(`initdb failed:\n${init.stderr}`);

	const [pgPort, redisPort] = [await freePort(), await freePort()];
	const postgresArgs = [
		'-D', pgData, '-p', String(pgPort), '-c', `listen_addresses=${LOOPBACK}`, '-c', 'unix_socket_directories=',
		'-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
	];
	const postgres = spawnProcessGroup(
		asUser === undefined ? join(binDir, 'postgres') : 'runuser',
		asUser === undefined ? postgresArgs : ['-u', asUser, '--', join(binDir, 'postgres'), ...postgresArgs],
		{ logFile: join(dataDir, 'postgres.log'), graceMs: SERVER_GRACE_MS },
	);
	const redis = spawnProcessGroup(
		REDIS_SERVER,
		['--port', String(redisPort), '--bind', LOOPBACK, '--save', '', '--appendonly', 'no', '--dir', dataDir],
		{ logFile: join(dataDir, 'redis.log'), graceMs: SERVER_GRACE_MS },
	);
	const stop = async () => {
		await Promise.all([postgres.stop(), redis.stop()]);
	};
	try {
		const pgReady = () =>
			run(join(binDir, 'pg_isready'), ['-h', LOOPBACK, '-p', String(pgPort), '-U', DATABASE_USER], { timeoutMs: 5_000 })
				.status === 0;
		await waitFor('Postgres', pgReady, postgres, 30_000);
		const created = run(join(binDir, 'createdb'), ['-h', LOOPBACK, '-p', String(pgPort), '-U', DATABASE_USER, DATABASE]);
		if (created.status !== 0) throw new Error(`createdb failed:\n${created.stderr}`);
		const redisReady = () => redisPing(redisPort);
		await waitFor('Redis', redisReady, redis, 30_000);
	} catch (error) {
		await stop();
		throw error;
	}
	return {
		postgres: { host: LOOPBACK, port: pgPort },
		redis: { host: LOOPBACK, port: redisPort },
		n8nEnv: {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: LOOPBACK,
			QUEUE_BULL_REDIS_PORT: String(redisPort),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: LOOPBACK,
			DB_POSTGRESDB_PORT: String(pgPort),
			DB_POSTGRESDB_DATABASE: DATABASE,
			DB_POSTGRESDB_USER: DATABASE_USER,
			DB_POSTGRESDB_PASSWORD: '',
		},
		sql: (statement) => {
			const args = ['-h', LOOPBACK, '-p', String(pgPort), '-U', DATABASE_USER, '-d', DATABASE, '-tAc', statement];
			const result = run(join(binDir, 'psql'), args);
			if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
			return result.stdout.trim();
		},
		stop,
	};
}

function redisPing(port: number): boolean {
	const result = spawnSync('redis-cli', ['-h', LOOPBACK, '-p', String(port), 'ping'], { encoding: 'utf8', timeout: 5_000 });
	return result.status === 0 && result.stdout.trim() === 'PONG';
}
