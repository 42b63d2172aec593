// `npm run dev` (after `npm run build`): a local sandbox in one command.
// - installs n8n into .cache/n8n on first use (progress on stderr), then reuses it;
// - starts the Booking Service simulator (http and loopback webhook targets allowed, so the trigger works locally);
// - starts n8n on 127.0.0.1 (port 5678 if free) with this package installed from a fresh `npm pack`, so the latest
//   build is what runs;
// - creates the credential "Booking Service (local simulator)" and imports examples/*.json wired to it;
// - prints where to open n8n, the login and the simulator's keys; Ctrl-C stops everything it started.
// The n8n data folder is temporary: each run starts clean (export workflows you want to keep).
// `npm run dev -- --n8n 1.123.81` runs another tested n8n version (installed into .cache/n8n-<version> on first use).
// `npm run dev -- --queue` runs n8n in queue mode instead (test/n8n/queue.ts): Postgres and Redis (Debian packages,
// installed on first use), main, one worker and two webhook processes behind a round-robin proxy that the simulator
// delivers to. Data and logs go to .cache/queue-dev (git-ignored), emptied at each start.

import { join } from 'node:path';
import { parseArgs } from 'node:util';

// Before the harness is loaded: it reads the version once (see PROFILES in install.ts).
const { values: args } = parseArgs({
	options: { n8n: { type: 'string' }, queue: { type: 'boolean', default: false } },
	strict: true,
});
if (args.n8n) process.env.BOOKING_N8N_VERSION = args.n8n;

const { startSimulator } = await import('../simulator/index.ts');
const { firstEventType, prepareExample, readExamples } = await import('./examples.ts');
const { ensureN8nInstalled, N8N_VERSION, REPO_ROOT } = await import('./install.ts');
const { startN8n } = await import('./instance.ts');
const { freePort } = await import('./process.ts');
const { startQueueN8n } = await import('./queue.ts');
type Simulator = import('../simulator/index.ts').Simulator;
type N8nInstance = import('./instance.ts').N8nInstance;
type QueueN8n = import('./queue.ts').QueueN8n;

const N8N_PORT = 5678;
const SIMULATOR_PORT = 5680;
/** Queue mode: the proxy in front of the webhook processes, i.e. the base of every Production URL. */
const PROXY_PORT = 5690;
const CREDENTIAL_NAME = 'Booking Service (local simulator)';

function say(message: string): void {
	process.stderr.write(`[dev] ${message}\n`);
}

async function main(): Promise<void> {
	const started = Date.now();
	await ensureN8nInstalled();

	let simulator: Simulator | undefined;
	let n8n: N8nInstance | undefined;
	let queue: QueueN8n | undefined;
	let stopping = false;
	const stopAll = async (why: string, exitCode: number) => {
		if (stopping) return;
		stopping = true;
		say(`${why}: stopping n8n and the simulator`);
		await (queue ?? n8n)?.stop();
		await simulator?.close();
		process.exit(exitCode);
	};
	process.once('SIGINT', () => void stopAll('SIGINT', 0));
	process.once('SIGTERM', () => void stopAll('SIGTERM', 0));

	try {
		simulator = await startSimulator({ port: await freePort(SIMULATOR_PORT), allowInsecureWebhookTargets: true });
		say(`simulator listening at ${simulator.baseUrl}; starting n8n ${N8N_VERSION}${args.queue ? ' in queue mode (about 30 s)' : ' (about 10 s)'}`);
		if (args.queue) {
			queue = await startQueueN8n({
				packageDir: REPO_ROOT,
				dataDir: join(REPO_ROOT, '.cache', 'queue-dev'),
				preferredMainPort: N8N_PORT,
				preferredProxyPort: PROXY_PORT,
			});
			n8n = queue.main;
		} else {
			n8n = await startN8n({ packageDir: REPO_ROOT, preferredPort: N8N_PORT });
		}
		const credential = await n8n.createCredential({
			name: CREDENTIAL_NAME,
			type: 'bookingServiceApi',
			data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
		});
		const eventType = await firstEventType(simulator.baseUrl, simulator.apiKeys.readWrite);
		const context = { credential: { id: credential.id, name: credential.name }, eventType };
		const imported: string[] = [];
		for (const { workflow } of readExamples()) {
			await n8n.createWorkflow(prepareExample(workflow, context));
			imported.push(workflow.name);
		}

		const instance = n8n;
		void instance.exited.then((how) => {
			if (stopping) return;
			say(`n8n ${how}; last lines of its log:\n${instance.logTail(40)}`);
			void stopAll('n8n stopped by itself', 1);
		});

		const seconds = Math.round((Date.now() - started) / 1000);
		const lines = [
			'',
			`n8n ${N8N_VERSION} is running with n8n-nodes-booking-service (ready in ${seconds} s)`,
			`  Open:        ${n8n.baseUrl}`,
			`  Log in:      ${n8n.owner.email} / ${n8n.owner.password}`,
			`  Credential:  "${CREDENTIAL_NAME}" → ${simulator.baseUrl}`,
			`  Workflows:   ${imported.length} examples from examples/, not published (open one, then Execute or Publish):`,
			...imported.map((name) => `                 ${name}`),
			`  Webhooks:    ${n8n.webhookUrl}webhook/… (the simulator may deliver to http://127.0.0.1 in this sandbox)`,
			...(queue === undefined
				? [`  n8n log:     ${n8n.logFile}`]
				: [
						'  Queue mode:  main (editor, activation) + 1 worker + 2 webhook processes, on Postgres and Redis',
						`               webhook processes ${queue.webhooks.map((process) => process.url).join(', ')}`,
						`               behind the round-robin proxy ${queue.proxy.url} (every Production URL starts with it)`,
						`               Postgres 127.0.0.1:${queue.services.postgres.port} (database n8n, user n8n), Redis 127.0.0.1:${queue.services.redis.port}`,
						`  Logs:        ${join(n8n.logFile, '..')} (main, worker, webhook-1, webhook-2)`,
					]),
			'',
			'Booking Service simulator (local sandbox, test keys):',
			`  API:         ${simulator.baseUrl}`,
			`  Control:     ${simulator.controlUrl}`,
			`  Keys:        read-write ${simulator.apiKeys.readWrite}`,
			`               read-only  ${simulator.apiKeys.readOnly}`,
			'',
			queue === undefined
				? 'Ctrl-C stops n8n and the simulator. The n8n data folder is temporary: export workflows you want to keep.'
				: 'Ctrl-C stops every process above. The data stays in .cache/queue-dev until the next start empties it.',
			'',
		];
		process.stdout.write(lines.join('\n'));
	} catch (error) {
		say(error instanceof Error ? (error.stack ?? error.message) : String(error));
		await stopAll('start-up failed', 1);
	}
}

await main();
