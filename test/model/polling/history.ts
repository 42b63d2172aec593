/**
 * One polling history from start to end: the simulator reset at virtual time, bookings made before activation, the
 * activation poll, the rate budget, the steps, a calm drain, then the reference's verdict and the stored state's size.
 * The model test runs it for generated histories; the regression tests for the shrunk ones they keep.
 */
import fc from 'fast-check';

import { SIMULATED_NOW } from '../../harness/fixtures.ts';
import type { PollScheduler } from '../../harness/poller.ts';
import type { Simulator } from '../../simulator/index.ts';
import { Coverage } from '../coverage.ts';
import { virtualTime } from '../virtual-time.ts';
import type { HistorySettings } from './world.ts';
import { halfHoursOf, PollingWorld, startsOf } from './world.ts';

export const BUDGETS = {
	none: false,
	generous: { requests: 600, perSeconds: 60 },
	small: { requests: 30, perSeconds: 60 },
	'tiny (6 a minute)': { requests: 6, perSeconds: 60 },
	'tiny (6 an hour)': { requests: 6, perSeconds: 3_600 },
} as const;

export interface HistoryChoice {
	budget: keyof typeof BUDGETS;
	filtered: boolean;
	/** Bookings made before activation: history, never reported; moves and payments of them are reported. */
	before: Array<'intro-call' | 'career-coaching'>;
}

export async function runHistory(
	sim: Simulator,
	scheduler: PollScheduler,
	settings: HistoryChoice,
	commands: Iterable<fc.AsyncCommand<Record<string, never>, PollingWorld>>,
	coverage: Coverage = new Coverage('replay'),
): Promise<void> {
	sim.control.reset();
	virtualTime.start(sim, Date.parse(SIMULATED_NOW));
	// The budget applies from after activation: the activation poll is a setting-up, not part of the history.
	const settingsNow: HistorySettings = { scheduler, budget: false, filtered: settings.filtered };
	const world = new PollingWorld(sim, settingsNow, coverage);
	for (const [index, slug] of settings.before.entries()) {
		const start = startsOf(slug)[startsOf(slug).length - 1 - index];
		for (const half of halfHoursOf(slug, start)) world.used.add(half);
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
	checkStoredState(world);
}

/**
 * Throws when what n8n stores exceeds the stated bound (docs/polling-trigger.md, "What it stores"): about 48 bytes per
 * booking remembered — in flight, upcoming, the 500 others changed last — plus a burst of N changes within two minutes
 * until it settles. `when` names the moment in the message (after the drain, or mid-drain).
 */
export function checkStoredState(world: PollingWorld, when = 'stored state'): void {
	const bookings = world.sim.control.bookings();
	const remembered = bookings.filter(
		(booking) =>
			['held', 'awaiting_payment'].includes(booking.status) ||
			(booking.status === 'confirmed' && Date.parse(booking.start) > virtualTime.serviceNow),
	).length;
	const bound =
		64 * (remembered + 500 + largestBurst(bookings.map((booking) => Date.parse(booking.updatedAt)))) + 4_096;
	if (world.harness.storedStateBytes > bound)
		throw new Error(`${when} ${world.harness.storedStateBytes} bytes, more than the stated ${bound}`);
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
