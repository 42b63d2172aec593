/**
 * The polling trigger's model-based test: random histories (polling/commands.ts) run the real node through n8n's
 * engine (PollHarness, both schedulers) against the simulator, in virtual time (virtual-time.ts), and what the
 * workflow received is compared with the reference model (polling/reference.ts). A few fixed-seed histories per
 * scheduler in `npm test`; `npm run model -- --runs N [--seed S] polling` for a long run with its coverage.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

import { SIMULATED_NOW, useTestSimulator } from '../harness/fixtures.ts';
import type { PollScheduler } from '../harness/poller.ts';
import { Coverage } from './coverage.ts';
import { expectedFaultLabels } from './faults.ts';
import { BURST_BUCKETS, INTERVALS, pollingCommands } from './polling/commands.ts';
import type { HistorySettings } from './polling/world.ts';
import { PollingWorld, startsOf } from './polling/world.ts';
import { modelRun } from './settings.ts';
import { virtualTime } from './virtual-time.ts';

// The transport's wait after a 429 passes in virtual time: a Retry-After of a minute costs nothing.
vi.mock('n8n-workflow', async (importOriginal) => {
	const actual = await importOriginal<Record<string, unknown>>();
	const { virtualTime: time } = await import('./virtual-time.ts');
	return { ...actual, sleep: time.sleep };
});

const sim = useTestSimulator({}, { beforeEachTest: 'nothing' });
const run = modelRun({ runs: 100, seed: 35 });

const BUDGETS = {
	none: false,
	generous: { requests: 600, perSeconds: 60 },
	small: { requests: 30, perSeconds: 60 },
	'tiny (6 a minute)': { requests: 6, perSeconds: 60 },
	'tiny (6 an hour)': { requests: 6, perSeconds: 3_600 },
} as const;

const settingsArbitrary = fc.record({
	budget: fc.constantFrom(...(Object.keys(BUDGETS) as Array<keyof typeof BUDGETS>)),
	filtered: fc.boolean(),
	/** Bookings made before activation: history, never reported; moves and payments of them are reported. */
	before: fc.array(fc.constantFrom('intro-call' as const, 'career-coaching' as const), { maxLength: 3 }),
});

type SettingsValue = typeof settingsArbitrary extends fc.Arbitrary<infer T> ? T : never;

const EXPECTED = [
	'command: book confirmed',
	'command: book awaiting_payment',
	'command: pay',
	'command: fail payment',
	'command: reschedule',
	'command: reschedule back',
	'command: cancel',
	'command: no-show',
	'command: complete',
	'command: notes',
	'command: notes (late write)',
	'command: restart',
	'command: reactivate',
	'command: fetch test event',
	...BURST_BUCKETS.map((bucket) => `burst: ${bucket}`),
	...INTERVALS.map((interval) => interval.label),
	...Object.keys(BUDGETS).map((budget) => `budget: ${budget}`),
	...expectedFaultLabels(),
	'clock: service back < 1 min',
	'clock: service back ≥ 1 min',
	'clock: service forward ≥ 1 min',
	'clock: n8n back',
	'clock: n8n forward',
	'poll: failed',
];

async function history(
	scheduler: PollScheduler,
	settings: SettingsValue,
	commands: Iterable<fc.AsyncCommand<Record<string, never>, PollingWorld>>,
	coverage: Coverage,
): Promise<void> {
	sim.control.reset();
	virtualTime.start(sim, Date.parse(SIMULATED_NOW));
	// The budget applies from after activation: the activation poll is a setting-up, not part of the history.
	const settingsNow: HistorySettings = { scheduler, budget: false, filtered: settings.filtered };
	const world = new PollingWorld(sim, settingsNow, coverage);
	for (const [index, slug] of settings.before.entries()) {
		const start = startsOf(slug)[startsOf(slug).length - 1 - index];
		world.used.add(start);
		const booking = sim.control.book({ slug, start, email: `before${index}@example.com` });
		world.bookings.push({ id: booking.id, slug, status: booking.status, start, originalStart: start });
		world.changed(booking);
	}
	virtualTime.advance(1_000);
	await world.activate();
	settingsNow.budget = BUDGETS[settings.budget];
	if (settingsNow.budget !== false) sim.control.setRateLimit(settingsNow.budget);
	coverage.count(`budget: ${settings.budget}`);
	coverage.count(settings.filtered ? 'filter: intro-call' : 'filter: none');
	await fc.asyncModelRun(() => ({ model: {}, real: world }), commands);
	await world.drain();
	coverage.history([...commands].length);
	const failures = world.reference.check(world.emitted, true);
	if (failures.length > 0) throw new Error(failures.slice(0, 10).join('\n'));
	// Stated bound (docs/polling-trigger.md, "What it stores"): about 48 bytes per booking remembered — in flight,
	// upcoming, the 500 others changed last — plus a burst of N changes within two minutes until it settles.
	const bookings = sim.control.bookings();
	const remembered = bookings.filter(
		(booking) =>
			['held', 'awaiting_payment'].includes(booking.status) ||
			(booking.status === 'confirmed' && Date.parse(booking.start) > virtualTime.serviceNow),
	).length;
	const bound =
		64 * (remembered + 500 + largestBurst(bookings.map((booking) => Date.parse(booking.updatedAt)))) + 4_096;
	expect(world.harness.storedStateBytes).toBeLessThanOrEqual(bound);
}

/** The most changes stamped within any two minutes. */
function largestBurst(stamps: number[]): number {
	const sorted = stamps.sort((a, b) => a - b);
	let largest = 0;
	for (let end = 0, begin = 0; end < sorted.length; end++) {
		while (sorted[end] - sorted[begin] > 2 * 60_000) begin++;
		largest = Math.max(largest, end - begin + 1);
	}
	return largest;
}

describe('polling trigger, model-based', () => {
	for (const scheduler of ['memory', 'durable'] as const) {
		it(`every change after activation once, with the right kind (${scheduler} scheduler)`, async () => {
			const coverage = new Coverage(`polling model, ${scheduler} scheduler`);
			try {
				await fc.assert(
					fc.asyncProperty(
						settingsArbitrary,
						fc.commands(pollingCommands, { maxCommands: 25, size: 'max' }),
						(settings, commands) => history(scheduler, settings, commands, coverage),
					),
					run.parameters,
				);
			} finally {
				virtualTime.stop();
				if (run.long) console.log(coverage.report(EXPECTED));
			}
		});
	}
});
