// Webhook model counterexamples kept as fixed histories: each runs its Steps (webhook/commands.ts) in order through
// the model's world (front door, processes, shared static data), judged like a generated history.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { Coverage } from './coverage.ts';
import type { Model, Real } from './webhook/commands.ts';
import { commandArbitraries } from './webhook/commands.ts';
import { leftSubscriptions, settle, violations } from './webhook/reference.ts';
import { DELIVERY_TIMEOUT_MS, WebhookWorld } from './webhook/world.ts';

type Command = fc.AsyncCommand<Model, Real>;

let accounts: Simulator[];
let decoys: Simulator;

beforeAll(async () => {
	vi.useFakeTimers({ toFake: ['Date'] });
	vi.setSystemTime(Date.parse('2031-03-03T00:00:00Z'));
	const options = { allowInsecureWebhookTargets: true, rateLimit: false as const, deliveryTimeoutMs: DELIVERY_TIMEOUT_MS };
	accounts = [await startSimulator(options), await startSimulator({ ...options, seed: 2 })];
	decoys = await startSimulator({ ...options, seed: 3 });
});

afterAll(async () => {
	for (const simulator of [...(accounts ?? []), decoys]) await simulator?.close();
	vi.useRealTimers();
});

/** The command of that name, as the model generates it (each arbitrary is a constant or a map of a small number). */
function step(name: string): Command {
	for (const arbitrary of commandArbitraries) {
		const found = fc.sample(arbitrary, { numRuns: 2_000, seed: 37 }).find((command) => command.toString() === name);
		if (found !== undefined) return found;
	}
	throw new Error(`no command ${name}`);
}

/** Runs the history; returns what the reference found broken, and which expected coverage labels it never counted. */
async function replay(names: string[], expected: string[]): Promise<{ found: string[]; missing: string[] }> {
	for (const simulator of [...accounts, decoys]) simulator.control.reset();
	const world = new WebhookWorld(accounts, decoys, Date.now());
	try {
		await world.startProcess();
		world.markPublished();
		await world.activate('activate');
		const model: Model = { published: true };
		const coverage = new Coverage('webhook regressions');
		const real: Real = { world, coverage };
		for (const name of names) {
			const command = step(name);
			if (command.check(model)) await command.run(model, real);
		}
		await settle(world);
		return { found: [...violations(world), ...(await leftSubscriptions(world))], missing: coverage.missing(expected) };
	} finally {
		await world.close();
	}
}

// `npm run model -- --runs 5000 --seed 4242 webhook`: the race's re-activation, started by a delivery the simulator
// sent in the background during the test listen, was still running when the user unpublished; the node rightly kept
// the subscription of an activation under way, and the world judged it as an unpublish with nothing failing.
it('seed 4242: a re-activation racing a test listen ends before the unpublish, which deletes the subscription', async () => {
	const history = ['rotateKey', 'book', 'raceReactivation', 'testListen', 'unpublish', 'cancel(0)'];
	// The race must have happened, or the history proves nothing.
	const raced = 'race: re-activation (ok) during a request to main';
	expect(await replay(history, [raced, 'test listen: started'])).toEqual({ found: [], missing: [] });
});

// `npm run model -- --runs 5000 --seed 5300 webhook` (after 493 histories), shrunk: after a rotation, within the minute
// the key state is remembered as "rotated", the credential is switched to another account; a flood's replay of a
// booking of the new account ran (a checked run, chk_…) at the old account's subscription, its booking read with the new
// account's key. Fixed: the checked path reads only with the key the rotation was proven for. The run's history had a
// sustained flood before the switch; since floods share one budget that flood is refused for budget, so the history
// kept is one that fails on the code before the fix with today's budget: a forged request proves the rotation first.
it('seed 5300: after a rotation and an account switch, a flood naming the new account’s booking runs nothing', async () => {
	const history = ['rotateKey', 'forge(made up, 0)', 'switchAccount', 'book', 'flood({"count":35,"several":false,"sustained":false})'];
	expect((await replay(history, [])).found).toEqual([]);
});

// `npm run model -- --runs 500 --seed 77 webhook` (after 346 histories), shrunk: the race's re-activation, started by a
// background delivery (the booking, to the first account's subscription) while the user's re-activation after the
// account switch was under way, ran alongside it: both read the static data naming the first account's subscription,
// both subscribed in the second account, the later record overwrote the earlier, and the unpublish could not delete a
// subscription nothing recorded (left in account 1, the account switched to, so no tolerance of the docs applies).
// A flaw of the world, not of the node: main's activations now run one after another (world.ts #activateNow), as
// activate() and unpublish() already waited for the race's.
it('seed 77: after a raced re-activation and an account switch, no subscription is left behind', async () => {
	const history = ['raceReactivation', 'book', 'switchAccount', 'reactivate', 'credentialUnreadable(×1)'];
	// The race must have happened, or the history proves nothing.
	const raced = 'race: re-activation (ok) during a request to main';
	expect(await replay(history, [raced])).toEqual({ found: [], missing: [] });
});

// `npm run model -- --runs 5000 --seed 5401 webhook` (after 732 histories), shrunk: the booking's delivery reached n8n
// in the background while the credential named account 1 and started the race's re-activation, which read that
// credential; the user switched back to account 0 a second later, and the activation then subscribed in account 1 with
// the key it had read. The unpublish could not delete it (the credential names account 0) and logged its id and
// account: the documented account-switch case, judged so far by when the subscription was made rather than by when its
// activation read the credential. A flaw of the world's reference (switchAwayAfter), not of the node.
it('seed 5401: after a raced re-activation, an account switch and back, and a second process, no subscription is left behind', async () => {
	const history = ['book', 'raceReactivation', 'switchAccount', 'book', 'switchAccount', 'secondProcess'];
	const raced = 'race: re-activation (ok) during a request to main';
	expect(await replay(history, [raced])).toEqual({ found: [], missing: [] });
});

// `npm run model -- --runs 5000 --seed 5402 webhook` (after 2,658 histories), shrunk: with the credential switched to
// account 1, a booking was made there a second before n8n's restart subscribed in account 1; after a rotation a flood
// replayed that booking's creation under a new event id and it ran (checked): the node counted a booking made up to a
// second before the subscription as made after it, in case the two are stamped differently. The service never
// delivers a change from before the subscription; now compared with the subscription's own stamp.
it('seed 5402: a booking made a second before the subscription is never run from a forged replay after a rotation', async () => {
	const history = ['switchAccount', 'book', 'restart', 'rotateKey', 'flood({"count":35,"several":false,"sustained":false})'];
	expect((await replay(history, [])).found).toEqual([]);
});
