// The same workflow on two real n8n instances (each its own process, database and encryption key, so its own
// instance id): the workflow and its credential exported from the first and imported into the second with
// `n8n import:credentials` / `n8n import:workflow`, which keep their ids and the workflow's static data. Publishing the
// copy never deletes the first instance's live subscription, and both run every event once. Then the first instance
// is started again under another WEBHOOK_URL (a proxy in front of it): it subscribes the new URL and leaves the old
// subscription, named in its log (one for another URL may be another n8n's with the same instance id).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureN8nInstalled, N8N_HARNESS, N8N_VERSION, REPO_ROOT } from '../n8n/install.ts';
import { n8nEnvironment, startN8n, type N8nInstance } from '../n8n/instance.ts';
import { spawnN8nProcess } from '../n8n/process.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from '../n8n/round-robin-proxy.ts';
import { startSimulator, type Booking, type Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE } from './n8n.ts';
import { publishedTriggerWorkflow, triggerItemOf } from './workflows.ts';
import { introCallSlots, service } from './service.ts';

const EXECUTIONS_LIMIT_MS = 30_000;
/** The second instance's own key: n8n derives its instance id from it. */
const SECOND_ENCRYPTION_KEY = 'n8n-nodes-booking-service-second-instance-key';

let simulator: Simulator;
let proxy: RoundRobinProxy | undefined;
const folders: Record<'first' | 'second', string> = { first: '', second: '' };
let first: N8nInstance;
let second: N8nInstance | undefined;
let credential: { id: string; name: string };
let workflowId: string;
let starts = 0;

function logFile(name: string): string {
	starts += 1;
	return join(REPO_ROOT, '.cache', 'e2e', `instances-${N8N_VERSION}-${name}-${starts}.log`);
}

async function startFirst(options: { port?: number; webhookUrl?: string } = {}): Promise<N8nInstance> {
	return await startN8n({
		packageDir: REPO_ROOT,
		userFolder: folders.first,
		logFile: logFile('first'),
		preferredPort: options.port,
		webhookUrl: options.webhookUrl,
	});
}

beforeAll(async () => {
	simulator = await startSimulator({ allowInsecureWebhookTargets: true });
	folders.first = mkdtempSync(join(tmpdir(), 'n8n-first-'));
	folders.second = mkdtempSync(join(tmpdir(), 'n8n-second-'));
	first = await startFirst();
	({ credential, workflowId } = await publishedTriggerWorkflow(first, simulator, 'instances e2e'));
}, 180_000);

afterAll(async () => {
	for (const instance of [first, second]) await instance?.deactivate(workflowId).catch(() => undefined);
	await first?.stop();
	await second?.stop();
	await proxy?.stop();
	await simulator?.close();
	for (const folder of Object.values(folders)) if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Runs an n8n CLI command against the second instance's database; throws with its log if it fails. */
async function secondInstanceCli(args: string[]): Promise<void> {
	const installation = await ensureN8nInstalled();
	const env = {
		...(await n8nEnvironment({ userFolder: folders.second, port: 0, webhookUrl: 'http://127.0.0.1:1/' })),
		N8N_ENCRYPTION_KEY: SECOND_ENCRYPTION_KEY,
	};
	const file = logFile(`cli-${args[0].replace(':', '-')}`);
	const exited = await spawnN8nProcess(installation, args, { cwd: folders.second, env, logFile: file }).exited;
	if (exited !== 'exited with code 0') throw new Error(`n8n ${args.join(' ')} ${exited}; see ${file}`);
}

async function book(): Promise<string> {
	const booking = await service<Booking>(simulator, 'POST', '/bookings', {
		eventTypeId: simulator.control.eventType('intro-call').id,
		start: (await introCallSlots(simulator))[0],
		booker: { name: 'Instances Test', email: `instances.${Date.now()}@example.com`, timezone: 'UTC' },
	});
	return booking.id;
}

/** The booking ids each finished execution carried, once at least `count` have finished. */
async function bookingsRun(instance: N8nInstance, count: number): Promise<string[]> {
	await instance.waitForExecutions(workflowId, count, EXECUTIONS_LIMIT_MS);
	await sleep(1_000); // a run beyond `count` would be recorded by now: n8n records it just after its answer (1.x) or before it
	return (await instance.listExecutions(workflowId)).map((execution) => {
		const item = triggerItemOf(execution);
		return (item?.booking as Booking | undefined)?.id ?? 'none';
	});
}

function deletes(): string[] {
	return simulator.control
		.requests()
		.filter((request) => request.method === 'DELETE' && request.route === '/webhooks/{id}')
		.map((request) => request.path.split('/').pop()!);
}

async function untilServed(url: string): Promise<void> {
	for (let attempt = 0; attempt < 50; attempt++) {
		if ((await fetch(url, { method: 'POST', body: '{}' })).status !== 404) return;
		await sleep(200);
	}
}

describe('the same workflow on two n8n instances (real n8n)', () => {
	it('the second instance never deletes the first one’s subscription; the first under a new URL subscribes it and leaves the old one, named in its log', async () => {
		const [original] = simulator.control.webhooks();
		const exported = await first.api<Record<string, unknown>>('GET', `/workflows/${workflowId}`);
		expect(JSON.stringify(exported.staticData)).toContain(original.id);

		second = await startN8n({
			packageDir: REPO_ROOT,
			userFolder: folders.second,
			logFile: logFile('second'),
			env: { N8N_ENCRYPTION_KEY: SECOND_ENCRYPTION_KEY },
		});
		const credentialsFile = join(folders.second, 'credentials.json');
		writeFileSync(
			credentialsFile,
			JSON.stringify([
				{
					id: credential.id,
					name: credential.name,
					type: CREDENTIAL_TYPE,
					data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
				},
			]),
		);
		const workflowFile = join(folders.second, 'workflow.json');
		const { id, name, nodes, connections, settings, staticData } = exported;
		writeFileSync(workflowFile, JSON.stringify([{ id, name, nodes, connections, settings, staticData, active: false }]));
		await secondInstanceCli(['import:credentials', `--input=${credentialsFile}`]);
		await secondInstanceCli(['import:workflow', `--input=${workflowFile}`]);
		simulator.control.clearRequests();

		await second.activate(workflowId);

		expect(deletes()).toEqual([]);
		const subscriptions = simulator.control.webhooks();
		expect(subscriptions.map((subscription) => subscription.id)).toContain(original.id);
		expect(subscriptions.map((subscription) => new URL(subscription.url).origin).sort()).toEqual(
			[new URL(first.webhookUrl).origin, new URL(second.webhookUrl).origin].sort(),
		);
		const secondsOwn = subscriptions.find((subscription) => subscription.id !== original.id)!;
		await untilServed(secondsOwn.url);
		const both = await book();
		await simulator.control.drainDeliveries();
		expect(await bookingsRun(first, 1)).toEqual([both]);
		expect(await bookingsRun(second, 1)).toEqual([both]);

		// The first instance again, behind a proxy: its WEBHOOK_URL is now the proxy's.
		const port = Number(new URL(first.baseUrl).port);
		await first.stop();
		proxy = await startRoundRobinProxy([`http://127.0.0.1:${port}`]);
		first = await startFirst({ port, webhookUrl: proxy.url });
		if (N8N_HARNESS.publishApi) {
			// n8n 2.41 does not call a trigger's hooks at start; publishing again does (delete, then checkExists/create).
			await first.deactivate(workflowId);
			await first.activate(workflowId);
		}
		// n8n 1.x activates the workflow again at start: checkExists finds its own record, for another URL.
		for (let attempt = 0; attempt < 150 && simulator.control.webhooks().length < 3; attempt++) await sleep(200);

		// A subscription for another URL may be another n8n's with the same instance id: never deleted, only named.
		expect(deletes()).toEqual([]);
		expect(first.logTail(2_000)).toContain(`webhook subscription ${original.id} delivers to`);
		const now = simulator.control.webhooks();
		expect(now.map((subscription) => subscription.id)).toEqual(expect.arrayContaining([original.id, secondsOwn.id]));
		expect(now).toHaveLength(3);
		const firstsNew = now.find((subscription) => ![original.id, secondsOwn.id].includes(subscription.id))!;
		expect(firstsNew.url.startsWith(proxy.url)).toBe(true);
		await untilServed(firstsNew.url);
		const later = await book();
		await simulator.control.drainDeliveries();
		expect((await bookingsRun(first, 2)).sort()).toEqual([both, later].sort());
		expect((await bookingsRun(second, 2)).sort()).toEqual([both, later].sort());
	}, 300_000);
});
