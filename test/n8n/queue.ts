// n8n in queue mode on one machine, the topology n8n documents for scaling: Postgres and Redis (./queue-services.ts),
// a main process (editor, public API, activation: the trigger's checkExists/create/delete), workers (executions,
// pulled from Redis) and webhook processes (production webhooks: the trigger's webhook()), with a round-robin proxy
// in front of the webhook processes (./round-robin-proxy.ts) whose address is every process's WEBHOOK_URL — so the
// subscriptions the trigger makes point at the proxy, and deliveries alternate between the webhook processes.
//
// Every process gets its own user folder with the package unpacked as n8n installs it (./instance.ts), its own
// ports, and the same encryption key, database and Redis.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureN8nInstalled } from './install.ts';
import { n8nEnvironment, startN8n, type N8nInstance } from './instance.ts';
import { freePort, spawnN8nProcess, waitUntilReady, type ProcessGroup } from './process.ts';
import { startQueueServices, type QueueServices } from './queue-services.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';

const START_LIMIT_MS = 2 * 60_000;

export interface QueueN8nOptions {
	packageDir: string;
	/** Everything of this run goes here: data of Postgres and Redis, user folders, logs. Emptied first. */
	dataDir: string;
	webhookProcesses?: number;
	/** Executions a worker runs at once (`n8n worker --concurrency`). Default 10. */
	workerConcurrency?: number;
	/** Ports to use if free: main's editor, and the proxy (the Production URLs' base). */
	preferredMainPort?: number;
	preferredProxyPort?: number;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	/** Extra environment for the webhook processes only (after `env`), e.g. a CPU profiler's NODE_OPTIONS. */
	webhookEnv?: Record<string, string>;
}

/** A worker or webhook process. */
export interface HelperProcess {
	role: 'worker' | 'webhook';
	/** Webhook process: its own address (`http://127.0.0.1:<port>/`), bypassing the proxy. Worker: its health server. */
	url: string;
	logFile: string;
	/** The n8n process's pid now (a restart changes it). */
	readonly pid: number;
	/** Stops it and starts it again on the same port and user folder; resolves once it is ready. */
	restart(): Promise<void>;
	stop(): Promise<void>;
}

export interface QueueN8n {
	/** The main process, with a client whose `webhookUrl` is the proxy (a new one after restartMain). */
	readonly main: N8nInstance;
	/** Stops main and starts it again on the same user folder and database; resolves once it is ready. */
	restartMain(): Promise<void>;
	worker: HelperProcess;
	webhooks: HelperProcess[];
	proxy: RoundRobinProxy;
	services: QueueServices;
	/** Milliseconds from the start of startQueueN8n to everything ready. */
	startMs: number;
	stop(): Promise<void>;
}

export async function startQueueN8n(options: QueueN8nOptions): Promise<QueueN8n> {
	const started = Date.now();
	const installation = await ensureN8nInstalled();
	rmSync(options.dataDir, { recursive: true, force: true });
	mkdirSync(options.dataDir, { recursive: true });
	const logsDir = join(options.dataDir, 'logs');
	const services = await startQueueServices(join(options.dataDir, 'services'));
	const stoppables: Array<{ stop(): Promise<void> }> = [services];
	const stopAll = async () => {
		for (const stoppable of stoppables.splice(0).reverse()) await stoppable.stop().catch(() => undefined);
	};

	try {
		const webhookPorts: number[] = [];
		for (let index = 0; index < (options.webhookProcesses ?? 2); index++) webhookPorts.push(await freePort());
		const proxy = await startRoundRobinProxy(
			webhookPorts.map((port) => `http://127.0.0.1:${port}/`),
			await freePort(options.preferredProxyPort),
		);
		stoppables.push(proxy);
		const shared = { ...services.n8nEnv, ...options.env };

		// startN8n unpacks the package into main's folder; the others get a copy of it.
		const mainFolder = join(options.dataDir, 'main');
		mkdirSync(mainFolder, { recursive: true });
		const startMain = async (port?: number) =>
			await startN8n({
				packageDir: options.packageDir,
				userFolder: mainFolder,
				preferredPort: port,
				webhookUrl: proxy.url,
				logFile: join(logsDir, `main${port === undefined ? '' : `-${Date.now()}`}.log`),
				startTimeoutMs: START_LIMIT_MS,
				env: shared,
			});
		let main = await startMain(options.preferredMainPort);
		stoppables.push({ stop: async () => await main.stop() });

		// Main has migrated the database; the others start together.
		const helper = async (role: 'worker' | 'webhook', name: string, port: number): Promise<HelperProcess> => {
			const userFolder = join(options.dataDir, name);
			cpSync(join(mainFolder, '.n8n', 'nodes'), join(userFolder, '.n8n', 'nodes'), { recursive: true });
			const env: NodeJS.ProcessEnv = {
				...(await n8nEnvironment({ userFolder, port, webhookUrl: proxy.url })),
				...shared,
				...(role === 'worker'
					? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }
					: (options.webhookEnv ?? {})),
			};
			const args = role === 'worker' ? ['worker', `--concurrency=${options.workerConcurrency ?? 10}`] : ['webhook'];
			const logFile = join(logsDir, `${name}.log`);
			const url = `http://127.0.0.1:${port}/`;
			let current: ProcessGroup;
			let starts = 0;
			const start = async () => {
				// A restart appends to the log, so what happened before it stays readable.
				current = spawnN8nProcess(installation, args, { cwd: userFolder, env, logFile, appendToLog: starts++ > 0 });
				try {
					await waitUntilReady(`${url}healthz/readiness`, Date.now() + START_LIMIT_MS, current.exitDescription);
				} catch (error) {
					await current.stop();
					throw new Error(`n8n ${role} (${name}) did not start: ${(error as Error).message}; log: ${logFile}`);
				}
			};
			await start();
			const helperProcess: HelperProcess = {
				role,
				url,
				logFile,
				get pid() {
					return current.pid;
				},
				async restart() {
					const stopping = Date.now();
					await current.stop();
					const starting = Date.now();
					await start();
					process.stderr.write(`[queue] ${name} restarted: stopped in ${starting - stopping} ms, ready ${Date.now() - starting} ms later\n`);
				},
				stop: async () => await current.stop(),
			};
			stoppables.push(helperProcess);
			return helperProcess;
		};
		const [worker, ...webhooks] = await Promise.all([
			helper('worker', 'worker', await freePort()),
			...webhookPorts.map((port, index) => helper('webhook', `webhook-${index + 1}`, port)),
		]);
		return {
			get main() {
				return main;
			},
			async restartMain() {
				const port = new URL(main.baseUrl).port;
				await main.stop();
				main = await startMain(Number(port));
			},
			worker,
			webhooks,
			proxy,
			services,
			startMs: Date.now() - started,
			stop: stopAll,
		};
	} catch (error) {
		await stopAll();
		throw error;
	}
}
