// Starts one n8n for the whole end-to-end run (installing it into .cache/n8n first if the cache is empty) and hands
// its connection to the test files (`inject('n8n')`, typed in ./n8n.ts). Stops it, and only it, at the end.
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureN8nInstalled, N8N_SCHEDULER, N8N_VERSION, REPO_ROOT } from '../n8n/install.ts';
import { startN8n } from '../n8n/instance.ts';

/** A cold install takes about 4 minutes here; beyond this something is wrong (a hung registry, a full disk). */
const INSTALL_LIMIT_MS = 15 * 60_000;
const START_LIMIT_MS = 2 * 60_000;
/** Kept after the run (git-ignored), for reading after a failure, locally or in CI. */
const LOG_FILE = join(REPO_ROOT, '.cache', 'e2e', `n8n-${N8N_VERSION}${N8N_SCHEDULER === 'durable' ? '-durable' : ''}.log`);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
	let started = Date.now();
	await ensureN8nInstalled({ limitMs: INSTALL_LIMIT_MS });
	const installMs = Date.now() - started;
	started = Date.now();
	const n8n = await startN8n({ packageDir: REPO_ROOT, startTimeoutMs: START_LIMIT_MS, logFile: LOG_FILE });
	const startMs = Date.now() - started;
	process.stderr.write(
		`[e2e] n8n ${N8N_VERSION} (${N8N_SCHEDULER} poll scheduler) at ${n8n.baseUrl} (install ${installMs} ms, start ${startMs} ms)\n`,
	);
	process.stderr.write(`[e2e] n8n log: ${n8n.logFile}\n`);
	project.provide('n8n', n8n.connection);
	return async () => {
		await n8n.stop();
	};
}
