/**
 * The polling trigger's model-based test: random histories (polling/commands.ts) run the real node through n8n's
 * engine (PollHarness, both schedulers) against the simulator, in virtual time (virtual-time.ts), and what the
 * workflow received is compared with the reference model (polling/reference.ts). A few fixed-seed histories per
 * scheduler in `npm test`; `npm run model -- --runs N [--seed S] polling` for a long run with its coverage.
 */
import fc from 'fast-check';
import { describe, it, vi } from 'vitest';

import { useTestSimulator } from '../harness/fixtures.ts';
import { Coverage } from './coverage.ts';
import { expectedFaultLabels } from './faults.ts';
import { BURST_BUCKETS, INTERVALS, pollingCommands } from './polling/commands.ts';
import { BUDGETS, runHistory } from './polling/history.ts';
import type { HistoryChoice } from './polling/history.ts';
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

const settingsArbitrary: fc.Arbitrary<HistoryChoice> = fc.record({
	budget: fc.constantFrom(...(Object.keys(BUDGETS) as Array<keyof typeof BUDGETS>)),
	filtered: fc.boolean(),
	before: fc.array(fc.constantFrom('intro-call' as const, 'career-coaching' as const), { maxLength: 3 }),
});

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

describe('polling trigger, model-based', () => {
	for (const scheduler of ['memory', 'durable'] as const) {
		it(`every change after activation once, with the right kind (${scheduler} scheduler)`, async () => {
			const coverage = new Coverage(`polling model, ${scheduler} scheduler`);
			try {
				await fc.assert(
					fc.asyncProperty(
						settingsArbitrary,
						fc.commands(pollingCommands, { maxCommands: 25, size: 'max', replayPath: run.replayPath }),
						(settings, commands) => runHistory(sim, scheduler, settings, commands, coverage),
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
