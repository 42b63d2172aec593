// `npm run dev` builds, then runs this: the local sandbox — the simulator (http and loopback webhook targets allowed),
// n8n on 127.0.0.1 (5678 if free, else a port the system picks) with a fresh `npm pack` of this package, a credential
// for the simulator and examples/*.json imported; Ctrl-C stops it all. `--n8n <version>` runs another tested n8n,
// `--queue` queue mode (test/n8n/queue.ts, data in .cache/queue-dev). n8n's data folder is temporary.

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
const { ensureN8nInstalled, N8N_HARNESS, N8N_VERSION, REPO_ROOT } = await import('./install.ts');
const { startN8n } = await import('./instance.ts');
const { freePort } = await import('./process.ts');
const { listenForSandboxKeys, SANDBOX_KEY_HELP } = await import('./dev-keys.ts');
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
		// n8n 2.41 publishes a workflow; 1.x (and the 2.x releases whose public API still says activate) activate it.
		const publish = N8N_HARNESS.publishApi ? 'Publish' : 'Activate';
		const lines = [
			'',
			`n8n ${N8N_VERSION} is running with n8n-nodes-booking-service (ready in ${seconds} s)`,
			`  Open:        ${n8n.baseUrl}/home/workflows`,
			`  Log in:      ${n8n.owner.email} / ${n8n.owner.password}`,
			`  Credential:  "${CREDENTIAL_NAME}" → ${simulator.baseUrl}`,
			`  Workflows:   ${imported.length} examples from examples/, not ${publish === 'Publish' ? 'published' : 'active'} (open one, then Execute workflow or ${publish}):`,
			...imported.map((name) => `                 ${name}`),
			`  Webhooks:    ${n8n.webhookUrl}webhook/… (in this sandbox the simulator delivers to 127.0.0.1:`,
			'               the node\'s "public https address" notice is for real use)',
			'  Test event:  open a Booking Service Trigger, click "Execute step" (it listens), then type here (the simulator sends',
			`               each event to every trigger listening or ${publish === 'Publish' ? 'published' : 'active'}):`,
			...SANDBOX_KEY_HELP,
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
			`  Control API: ${simulator.controlUrl} (JSON over HTTP, for scripts: see test/simulator/README.md)`,
			`  Keys:        read-write ${simulator.apiKeys.readWrite}`,
			`               read-only  ${simulator.apiKeys.readOnly}`,
			'',
			queue === undefined
				? 'Ctrl-C stops n8n and the simulator. The n8n data folder is temporary: export workflows you want to keep.'
				: 'Ctrl-C stops every process above. The data stays in .cache/queue-dev until the next start empties it.',
			'',
		];
		process.stdout.write(lines.join('\n'));
		listenForSandboxKeys(simulator, eventType.id, say);
	} catch (error) {
		say(error instanceof Error ? (error.stack ?? error.message) : String(error));
		await stopAll('start-up failed', 1);
	}
}

await main();
