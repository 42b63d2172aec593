// Installs what the e2e and queue suites need, so that .ci/run can do it in the background while the build, lint and
// first e2e suite run: n8n BOOKING_N8N_VERSION (default 2.41.1) into .cache (a suite that needs an n8n still being
// installed waits for its lock); with `--tools`, verdaccio before it (the first e2e suite's community install takes no
// lock) and Postgres/Redis after it (only the queue suites need them, and .ci/run starts those after this has ended).
import { ensureN8nInstalled, N8N_VERSION } from './install.ts';
import { ensureVerdaccioInstalled } from './local-registry.ts';
import { ensureQueueServicesInstalled } from './queue-services.ts';

function timed(what: string, install: () => unknown): Promise<void> {
	const started = Date.now();
	return Promise.resolve(install()).then(() => {
		process.stderr.write(`[prefetch] ${what}: ready after ${Math.round((Date.now() - started) / 1000)} s\n`);
	});
}

const tools = process.argv.includes('--tools');
if (tools) await timed('verdaccio', ensureVerdaccioInstalled);
await timed(`n8n ${N8N_VERSION}`, () => ensureN8nInstalled({ limitMs: 15 * 60_000 }));
if (tools) await timed('postgresql and redis-server', ensureQueueServicesInstalled);
