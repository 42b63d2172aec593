// The webhook trigger's model-based test (issue 37): random histories of booking changes, the service's deliveries
// (duplicated, reordered, retried over days, answers lost), forged requests and floods of them, key rotations,
// account switches, restarts, a second process (queue mode), test listens, publish and unpublish with faults on any
// request, run through the real node code and the simulator, then judged by the reference (webhook/reference.ts).
// `npm test` runs a few histories from a fixed seed; `npm run model -- --runs N webhook` many more, printing the
// coverage.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { Coverage } from './coverage.ts';
import { modelRun } from './settings.ts';
import type { Model, Real } from './webhook/commands.ts';
import { commandArbitraries, FAULT_KINDS, FAULT_ROUTES } from './webhook/commands.ts';
import { FLOOD_SIZES } from './webhook/floods.ts';
import { FORGERY_KINDS } from './webhook/forgeries.ts';
import { leftSubscriptions, settle, violations } from './webhook/reference.ts';
import { DELIVERY_TIMEOUT_MS, WebhookWorld } from './webhook/world.ts';

const run = modelRun({ runs: 12, seed: 37 });
const coverage = new Coverage('webhook trigger');
const EXPECTED = [
	...['book', 'cancel', 'noShow', 'reschedule', 'deliver', 'deliveryMode', 'advance', 'fault', 'credentialUnreadable'].map(
		(name) => `command: ${name}`,
	),
	...['loseNextAnswer', 'forge', 'rotateKey', 'restart', 'reactivate', 'publish', 'unpublish', 'testListen', 'stopListening'].map(
		(name) => `command: ${name}`,
	),
	...FAULT_ROUTES.flatMap(([method, path]) => FAULT_KINDS.map((kind) => `fault: ${kind} on ${method} ${path}`)),
	...FORGERY_KINDS.map((kind) => `forgery: ${kind}`),
	...['switchAccount', 'secondProcess', 'route', 'flood', 'floodStops', 'raceReactivation'].map((name) => `command: ${name}`),
	...['main', 'webhook'].map((role) => `race: re-activation (ok) during a request to ${role}`),
	...['published', 'unpublished'].flatMap((state) => [`rotation: ${state}, retries pending`, `rotation: ${state}, nothing pending`]),
	...['published', 'unpublished'].flatMap((state) => [`account switch: ${state}, retries pending`, `account switch: ${state}, nothing pending`]),
	...['started', 'restarted'].map((state) => `second process: ${state} (published, nothing pending)`),
	...['alternate', 'main', 'second'].map((routing) => `routing: ${routing}, two processes`),
	...FLOOD_SIZES.flatMap((size) =>
		['one trigger', 'several triggers'].flatMap((where) => ['', ', sustained'].map((s) => `${size} at ${where}${s}`)),
	).flatMap((flood) => [`flood: ${flood} (key as published)`, `flood: ${flood} (key rotated)`]),
];

let accounts: Simulator[];
let decoys: Simulator;
let nextStartMs = Date.parse('2031-03-03T00:00:00Z');

beforeAll(async () => {
	vi.useFakeTimers({ toFake: ['Date'] });
	vi.setSystemTime(nextStartMs);
	// Two accounts the credential can name (other seeds: other ids, keys and secrets), and one for the other
	// workflows a flood targets.
	const options = { allowInsecureWebhookTargets: true, rateLimit: false as const, deliveryTimeoutMs: DELIVERY_TIMEOUT_MS };
	accounts = [await startSimulator(options), await startSimulator({ ...options, seed: 2 })];
	decoys = await startSimulator({ ...options, seed: 3 });
});

afterAll(async () => {
	for (const simulator of [...(accounts ?? []), decoys]) await simulator?.close();
	vi.useRealTimers();
	if (run.long) console.log(coverage.report(EXPECTED));
});

async function history(commands: Iterable<fc.AsyncCommand<Model, Real>>): Promise<void> {
	nextStartMs += 20 * 86_400_000; // each history on days of its own: the process budgets refill, nothing is due
	vi.setSystemTime(nextStartMs);
	for (const simulator of [...accounts, decoys]) simulator.control.reset();
	const world = new WebhookWorld(accounts, decoys, nextStartMs);
	try {
		await world.startProcess();
		world.markPublished();
		await world.activate('activate');
		await fc.asyncModelRun(() => ({ model: { published: true }, real: { world, coverage } }), commands);
		await settle(world);
		const found = violations(world);
		found.push(...(await leftSubscriptions(world)));
		coverage.history([...commands].length);
		expect(found).toEqual([]);
	} finally {
		await world.close();
	}
}

it('every genuine event runs once per process; no forged request runs; every subscription made is deleted', async () => {
	await fc.assert(fc.asyncProperty(fc.commands(commandArbitraries, { maxCommands: 25, size: '+1', replayPath: run.replayPath }), history), run.parameters);
});
