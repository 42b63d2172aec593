// A process in its own process group — n8n of any role (`n8n start`, `n8n worker`, `n8n webhook`), or a server it
// needs — spawned with its output in a log file, waited for until ready, and stopped in order (graceful, then killed).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOOPBACK = '127.0.0.1';

/** A free TCP port on 127.0.0.1: `preferred` if it is free, else one the system picks. */
export async function freePort(preferred?: number): Promise<number> {
	const tryListen = (port: number) =>
		new Promise<number | undefined>((resolvePort) => {
			const server = createServer();
			server.once('error', () => resolvePort(undefined));
			server.listen(port, LOOPBACK, () => {
				const address = server.address();
				server.close(() => resolvePort(typeof address === 'object' && address ? address.port : undefined));
			});
		});
	if (preferred !== undefined) {
		const port = await tryListen(preferred);
		if (port !== undefined) return port;
	}
	const port = await tryListen(0);
	if (port === undefined) throw new Error(`no free port on ${LOOPBACK}`);
	return port;
}

/** A running process that leads its own process group: n8n of any role, Postgres, Redis. */
export interface ProcessGroup {
	pid: number;
	/** Settles when the process exits, for whatever reason, with a description of how. */
	exited: Promise<string>;
	/** How the process exited, once it has. */
	exitDescription(): string | undefined;
	/** Runs if this Node process exits while the group still runs (after the group has been killed). */
	onForcedExit(cleanup: () => void): void;
	/** SIGTERM (graceful shutdown), SIGKILL after the grace period. Safe to call twice. */
	stop(): Promise<void>;
}

/**
 * Spawns `file args` as the leader of its own process group with its output in `logFile` (overwritten unless
 * `appendToLog`). detached: stop() can end exactly that group (n8n with its task runner), and a Ctrl-C in the
 * terminal reaches only our process, which then stops the group in order.
 */
export function spawnProcessGroup(
	file: string,
	args: string[],
	options: { cwd?: string; env?: NodeJS.ProcessEnv; logFile: string; appendToLog?: boolean; graceMs: number },
): ProcessGroup {
	mkdirSync(dirname(options.logFile), { recursive: true });
	const out = openSync(options.logFile, options.appendToLog ? 'a' : 'w');
	const child = spawn(file, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', out, out] });
	closeSync(out);
	let exitDescription: string | undefined;
	const exited = new Promise<string>((settle) => {
		child.once('exit', (code, signal) => {
			exitDescription = signal ? `killed by ${signal}` : `exited with code ${code}`;
			settle(exitDescription);
		});
		child.once('error', (error) => {
			exitDescription = `could not be started: ${error.message}`;
			settle(exitDescription);
		});
	});
	const cleanups: Array<() => void> = [];
	// Should this process end without stop() (a crash, process.exit, Ctrl-C while starting), the group must not live on.
	const killOnExit = () => {
		killGroup(child, 'SIGKILL');
		for (const cleanup of cleanups) cleanup();
	};
	process.once('exit', killOnExit);
	let stopping: Promise<void> | undefined;
	return {
		pid: child.pid ?? 0,
		exited,
		exitDescription: () => exitDescription,
		onForcedExit: (cleanup) => cleanups.push(cleanup),
		stop() {
			stopping ??= (async () => {
				process.removeListener('exit', killOnExit);
				await stopProcessGroup(child, exited, options.graceMs);
			})();
			return stopping;
		},
	};
}

/** Spawns `n8n <args>` on the installation's Node; stop() allows n8n 20 s for its graceful shutdown. */
export function spawnN8nProcess(
	installation: { nodeBin: string; n8nBin: string },
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv; logFile: string; appendToLog?: boolean },
): ProcessGroup {
	return spawnProcessGroup(installation.nodeBin, [installation.n8nBin, ...args], { ...options, graceMs: 20_000 });
}

export async function waitUntilReady(readinessUrl: string, deadline: number, exited: () => string | undefined): Promise<void> {
	while (Date.now() < deadline) {
		const how = exited();
		if (how) throw new Error(`n8n ${how} before it was ready`);
		try {
			const response = await fetch(readinessUrl, { signal: AbortSignal.timeout(2_000) });
			await response.body?.cancel();
			if (response.ok) return;
		} catch {
			// not listening yet
		}
		await sleep(250);
	}
	throw new Error(`${readinessUrl} did not answer 200 in time`);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch (error) {
		// ESRCH: the group is gone already.
		if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
	}
}

/** SIGTERM to the process group (graceful shutdown), SIGKILL after `graceMs`, then SIGKILL to any straggler. */
async function stopProcessGroup(child: ChildProcess, exited: Promise<string>, graceMs: number): Promise<void> {
	killGroup(child, 'SIGTERM');
	const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
	// n8n's task runner is in the same group; it normally leaves with n8n, this makes sure.
	killGroup(child, 'SIGKILL');
}
