/**
 * Red team 5, of model seed 5300's fix (a finished scan's position is its top, also when the change there was changed
 * again during the scan): scans whose top booking changes mid-scan, bursts past the caps, refused page cursors, the
 * service's clock off, and the stored state mid-drain. Histories replayed like the model's regressions.
 */
import fc from 'fast-check';
import { afterEach, describe, it, vi } from 'vitest';

import { useTestSimulator } from '../harness/fixtures.ts';
import type { PollScheduler } from '../harness/poller.ts';
import { BurstThenFaultyPoll } from '../model/polling/commands.ts';
import { checkStoredState, runHistory } from '../model/polling/history.ts';
import { Lifecycle, Poll, ServiceClockStep } from '../model/polling/n8n-commands.ts';
import { Book, Burst, Change } from '../model/polling/service-commands.ts';
import type { PollingWorld } from '../model/polling/world.ts';
import { virtualTime } from '../model/virtual-time.ts';

vi.mock('n8n-workflow', async (importOriginal) => {
	const actual = await importOriginal<Record<string, unknown>>();
	const { virtualTime: time } = await import('../model/virtual-time.ts');
	return { ...actual, sleep: time.sleep };
});

const sim = useTestSimulator();

afterEach(() => {
	vi.useRealTimers();
	virtualTime.stop();
});

const none = { budget: 'none', filtered: false, before: [] } as const;

/** `steps` times: `perStep` silent confirmed bookings (past starts: neither upcoming nor in flight), then `stepMs`. */
class Spread implements fc.AsyncCommand<Record<string, never>, PollingWorld> {
	readonly perStep: number;
	readonly steps: number;
	readonly stepMs: number;
	constructor(perStep: number, steps: number, stepMs: number) {
		this.perStep = perStep;
		this.steps = steps;
		this.stepMs = stepMs;
	}
	check = () => true;
	async run(model: Record<string, never>, world: PollingWorld) {
		for (let step = 0; step < this.steps; step++) {
			await new Burst(this.perStep, false).run(model, world);
			virtualTime.advance(this.stepMs);
		}
	}
	toString = () => `Spread(${this.perStep} × ${this.steps}, every ${this.stepMs} ms)`;
}

/** After a poll: what n8n stores now, against runHistory's bound for the bookings as they are now. */
class CheckBound implements fc.AsyncCommand<Record<string, never>, PollingWorld> {
	check = () => true;
	async run(_model: Record<string, never>, world: PollingWorld) {
		checkStoredState(world, 'mid-drain: stored state');
	}
	toString = () => 'CheckBound';
}

describe.each<PollScheduler>(['memory', 'durable'])('%s scheduler', (scheduler) => {
	// Model seed 9101 (300 histories, both schedulers), shrunk: a booking made before activation moved back to its own
	// start in the activation's millisecond, the workflow reactivated (its poll reports the move, notes empty), the notes
	// edited in that same millisecond, a poll: "a state the service never had". A flaw of the reference: it merged the
	// edit into the reported version and kept only the new notes; a merged version now keeps each.
	it('seed 9101: a booking made before activation moved back to its own start, reactivated, notes edited', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			new Change('reschedule back', 0, 0, 0),
			new Lifecycle('reactivate'),
			new Change('notes', 0, 0, 0),
			new Poll(0, undefined),
		]);
	});

	// RT5-1, a documented limit ("Changes written late"): a booking read, then settled by a quiet poll three minutes
	// later (the next readings start just after it); the service's clock then steps back 5 minutes, and a booking made
	// then is stamped before the settled one: written five minutes after the time it carries, it is never listed. The
	// model keeps the service's clock within two minutes of true time (world.ts, earliestPromisedStampMs); this step
	// is past that (unclamped). Fails on the code before seed 5300's fix too.
	it.fails('RT5-1 (limit: written more than two minutes late): the service clock steps back 5 min after a change settled; a booking then is reported', async () => {
		await runHistory(sim, scheduler, { ...none, before: [] }, [
			new Poll(1, undefined),
			new Book('intro-call', 0, 1),
			new Poll(0, undefined),
			new Poll(0, undefined),
			new Poll(0, undefined),
			new Poll(0, undefined),
			new ServiceClockStep(-5 * 60_000, false),
			new Book('intro-call', 1, 0),
			new Poll(0, undefined),
		]);
	});

	// 30,000 changes, 1,000 every 12 s, drained a poll a minute: what n8n stores after each poll stays within the bound
	// the model reads from the docs (on the replaced rule of 942879b it reached 555 KB mid-drain, 7× this code's).
	// The two largest histories run on the memory scheduler only (20–50 s each), to keep npm test's time down.
	it.runIf(scheduler === 'memory')('30,000 changes spread over six minutes, drained at a poll a minute: the stored state stays within its bound at every poll', async () => {
		const polls = Array.from({ length: 12 }, () => [new Poll(0, undefined), new CheckBound()]).flat();
		await runHistory(sim, scheduler, { ...none, before: [] }, [new Spread(1_000, 30, 12_000), ...polls]);
	}, 300_000);

	it('5,001 at once and a booking on top, the top booking edited mid-scan, a restart, 501 more: each reported once', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			new Burst(5_001, false),
			new Book('intro-call', 0, 1),
			new Poll(0, undefined),
			new Change('notes', 1, 1, 0),
			new Lifecycle('restart'),
			new Burst(501, false),
			new Poll(0, undefined),
			new Change('cancel', 1, 1, 0),
			new Poll(0, undefined),
		]);
	}, 120_000);

	it('the service 100 s ahead, 1,001 at once read through a 429 mid-scan, the top booking moved, reactivated: each once', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			new ServiceClockStep(100_000),
			new Book('intro-call', 0, 1),
			new BurstThenFaultyPoll(new Burst(1_001, false), { kind: '429', retryAfterSeconds: 0, times: 5, page: 0 }, 0.5),
			new Change('reschedule', 1, 1, 0),
			new Lifecycle('reactivate'),
			new Burst(501, false),
			new ServiceClockStep(-110_000),
			new Book('intro-call', 2, 1),
			new Poll(0, { kind: '5xx', status: 500, page: 3 }),
			new Poll(0, undefined),
			new Change('cancel', 1, 1, 0),
		]);
	}, 120_000);

	it('a budget of six a minute, 5,001 at once, the top booking edited between chunks, a late write: each once', async () => {
		await runHistory(sim, scheduler, { budget: 'tiny (6 a minute)', filtered: false, before: ['intro-call'] }, [
			new Book('intro-call', 0, 1),
			new Burst(5_001, false),
			new Poll(0, undefined),
			new Change('notes', 1, 1, 0),
			new Poll(0, undefined),
			new Change('reschedule', 0, 1, 100_000),
			new Poll(0, undefined),
			new Burst(501, false),
			new Poll(1, undefined),
			new Change('cancel', 0, 1, 0),
		]);
	}, 120_000);

	// The model never refuses a stored page cursor (its faults are 429, 500/502/503 and drops; scan.ts rediscovers only
	// on a 400 to a request continuing from a stored cursor). These refuse one mid-scan, after the scan's top changed.
	const refused = { kind: '5xx', status: 400, page: 0 } as const;
	/** The 400 hit a request continuing from a stored cursor (the rediscovery path), not a first page. */
	class RefusedACursor implements fc.AsyncCommand<Record<string, never>, PollingWorld> {
		check = () => true;
		async run(_model: Record<string, never>, world: PollingWorld) {
			const hit = world.sim.control
				.requests()
				.some((entry) => entry.route?.endsWith('/bookings') && entry.status === 400 && entry.query.cursor !== undefined);
			if (!hit) throw new Error('setup: no stored cursor was refused');
		}
		toString = () => 'RefusedACursor';
	}

	it('10,000 at once under a booking, the booking edited mid-scan, the stored cursor refused: each reported once', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			new Burst(10_000, false),
			new Book('intro-call', 0, 1),
			new Poll(0, undefined),
			new Change('notes', 1, 1, 0),
			new Poll(0, refused),
			new RefusedACursor(),
			new Poll(0, undefined),
			new Burst(501, false),
			new Poll(0, undefined),
			new Change('cancel', 1, 1, 0),
		]);
	}, 180_000);

	it('10,000 at once, a cursor refused, 501 in the position\'s millisecond, a restart, the service clock back 110 s: each once', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			new Book('intro-call', 0, 1),
			new Burst(10_000, false),
			new Poll(0, undefined),
			new Burst(501, false),
			new Change('reschedule', 1, 0, 0),
			new Poll(0, refused),
			new RefusedACursor(),
			new Lifecycle('restart'),
			new Poll(0, { kind: '5xx', status: 400, page: 3 }),
			new ServiceClockStep(-110_000),
			new Burst(501, false),
			new Book('intro-call', 2, 1),
			new Poll(0, undefined),
			new Poll(0, undefined),
		]);
	}, 180_000);

	// Past MAX_IN_OVERLAP (50,000) in one millisecond, the booking on top edited mid-scan, so the finished scan's
	// position comes from its top, not from a change it reported; the 50,000 cut (withKnown) applies. Explicit polls
	// first: discovery-only polls are quiet, and the drain stops after two quiet polls.
	it.runIf(scheduler === 'memory')('60,000 changes in one millisecond, a booking on top edited mid-scan: each reported once', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			...Array.from({ length: 6 }, () => new Burst(10_000, false)),
			new Book('intro-call', 0, 0),
			new Poll(0, undefined),
			new Poll(0, undefined),
			new Change('notes', 1, 1, 0),
			...Array.from({ length: 16 }, () => new Poll(0, undefined)),
		]);
	}, 600_000);
});
