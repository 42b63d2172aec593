/**
 * The steps of a polling history, as fast-check commands: what the service does (bookings made, paid, moved,
 * cancelled, marked; bursts; late writes; its clock stepping), what n8n does (polls at intervals from a minute to a
 * day, restarts, deactivate/activate, Fetch Test Event, its clock stepping) and what goes wrong (faults on any page).
 * Each counts its coverage label as it runs.
 */
import fc from 'fast-check';

import type { Booking } from '../../simulator/index.ts';
import { faultArbitrary, faultsHit, injectFault } from '../faults.ts';
import type { FaultChoice } from '../faults.ts';
import { virtualTime } from '../virtual-time.ts';
import type { PollingWorld, TrackedBooking } from './world.ts';
import { MINUTE, startsOf } from './world.ts';

type Model = Record<string, never>;
type Command = fc.AsyncCommand<Model, PollingWorld>;

/** The gap since the last step: often the same millisecond, usually seconds. */
const gapArbitrary = fc.oneof(
	{ weight: 2, arbitrary: fc.constant(0) },
	{ weight: 5, arbitrary: fc.integer({ min: 1, max: 30_000 }) },
);

class Book implements Command {
	readonly slug: TrackedBooking['slug'];
	readonly pick: number;
	readonly gapMs: number;
	constructor(slug: TrackedBooking['slug'], pick: number, gapMs: number) {
		this.slug = slug;
		this.pick = pick;
		this.gapMs = gapMs;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		const free = startsOf(this.slug).filter((start) => !world.used.has(start));
		const start = free[this.pick % free.length];
		virtualTime.advance(this.gapMs);
		world.used.add(start);
		const booking = world.sim.control.book({
			slug: this.slug,
			start,
			email: `m${world.bookings.length}@example.com`,
		});
		world.bookings.push({
			id: booking.id,
			slug: this.slug,
			status: booking.status,
			start,
			originalStart: start,
		});
		world.changed(booking);
		world.coverage.count(`command: book ${booking.status}`);
	}
	toString = () => `Book(${this.slug}, ${this.pick}, +${this.gapMs}ms)`;
}

type ChangeKind =
	| 'pay'
	| 'fail payment'
	| 'reschedule'
	| 'reschedule back'
	| 'cancel'
	| 'no-show'
	| 'complete'
	| 'notes';

const ALLOWED: Record<ChangeKind, string[]> = {
	pay: ['awaiting_payment'],
	'fail payment': ['awaiting_payment'],
	reschedule: ['confirmed'],
	'reschedule back': ['confirmed'],
	cancel: ['confirmed', 'awaiting_payment'],
	'no-show': ['confirmed', 'completed'],
	complete: ['confirmed'],
	notes: ['confirmed', 'awaiting_payment', 'cancelled', 'no_show', 'completed'],
};

/** A change of one of the model's bookings; `lateMs` > 0: the service writes it that late (stamped earlier). */
class Change implements Command {
	readonly kind: ChangeKind;
	readonly which: number;
	readonly gapMs: number;
	readonly lateMs: number;
	constructor(kind: ChangeKind, which: number, gapMs: number, lateMs: number) {
		this.kind = kind;
		this.which = which;
		this.gapMs = gapMs;
		this.lateMs = lateMs;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		const candidates = world.bookings.filter((booking) => ALLOWED[this.kind].includes(booking.status));
		if (candidates.length === 0) return;
		const target = candidates[this.which % candidates.length];
		virtualTime.advance(this.gapMs);
		const { control } = world.sim;
		const act = (): Booking => {
			switch (this.kind) {
				case 'pay':
					return control.payment(target.id, { outcome: 'succeeded' });
				case 'fail payment':
					return control.payment(target.id, { outcome: 'not_completed' });
				case 'reschedule': {
					const free = startsOf(target.slug).filter((start) => !world.used.has(start));
					const start = free[(this.which * 7) % free.length];
					world.used.add(start);
					return control.reschedule(target.id, { start, by: 'booker' });
				}
				case 'reschedule back':
					return control.reschedule(target.id, {
						start: target.originalStart,
						by: 'host',
					});
				case 'cancel':
					return control.cancel(target.id, { by: 'booker' });
				case 'no-show':
					return control.noShow(target.id);
				case 'complete':
					return control.complete(target.id);
				case 'notes':
					return control.editNotes(target.id, {
						notes: `note ${world.reference.changes}`,
					});
			}
		};
		// A late write stays within what is promised: after activation, within the overlap of the newest change.
		const lateMs = Math.min(this.lateMs, Math.max(0, virtualTime.serviceNow - world.earliestPromisedStampMs));
		let booking: Booking;
		try {
			booking = lateMs > 0 ? virtualTime.late(lateMs, act) : act();
		} catch (error) {
			// Moving back to a start taken meanwhile, or a reschedule whose start is no longer free: no change.
			if ((error as { code?: string }).code === 'slot_unavailable') return;
			throw error;
		}
		target.status = booking.status;
		target.start = booking.start;
		world.changed(booking);
		world.coverage.count(`command: ${this.kind}${lateMs > 0 ? ' (late write)' : ''}`);
	}
	toString = () =>
		`Change(${this.kind}, ${this.which}, +${this.gapMs}ms${this.lateMs ? `, ${this.lateMs}ms late` : ''})`;
}

/** Caps the bursts reach past: 500 let go, 1,000 per chunk, 5,000 per poll. */
export const BURST_BUCKETS = [
	'1-20',
	'501-600 (past 500 remembered)',
	'1001-1100 (past a chunk)',
	'5001-5100 (past a poll)',
];

class Burst implements Command {
	readonly size: number;
	readonly awaiting: boolean;
	constructor(size: number, awaiting: boolean) {
		this.size = size;
		this.awaiting = awaiting;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		const { control } = world.sim;
		const status = this.awaiting ? 'awaiting_payment' : 'confirmed';
		const { ids } = control.generateBookings({ count: this.size, status });
		const made = new Set(ids);
		for (const booking of control.bookings()) if (made.has(booking.id)) world.changed(booking);
		const bucket = BURST_BUCKETS.find((label) => {
			const [min, max] = label.split(' ')[0].split('-').map(Number);
			return this.size >= min && this.size <= max;
		});
		world.coverage.count(`burst: ${bucket ?? 'other'}${this.awaiting ? ' awaiting payment' : ''}`);
	}
	toString = () => `Burst(${this.size}${this.awaiting ? ', awaiting payment' : ''})`;
}

export const INTERVALS = [
	{ label: 'interval: 1 min', ms: MINUTE },
	{ label: 'interval: 5 min', ms: 5 * MINUTE },
	{ label: 'interval: 1 h', ms: 60 * MINUTE },
	{ label: 'interval: 1 day', ms: 24 * 60 * MINUTE },
];

/** n8n polls after `interval`; with `fault`, the service fails the poll's n-th listing request that way. */
class Poll implements Command {
	readonly interval: number;
	readonly fault: FaultChoice | undefined;
	constructor(interval: number, fault: FaultChoice | undefined) {
		this.interval = interval;
		this.fault = fault;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		const { label, ms } = INTERVALS[this.interval];
		virtualTime.advance(ms);
		world.coverage.count(label);
		if (this.fault !== undefined) {
			for (const faultLabel of injectFault(world.sim, { method: 'GET', path: '/bookings' }, this.fault))
				world.coverage.count(faultLabel);
		}
		const pending = world.sim.control.faults();
		try {
			const items = await world.poll();
			world.coverage.count(items.length > 0 ? 'poll: emitted' : 'poll: quiet');
		} catch (error) {
			// A poll may fail only for what the service did to it (a fault, the rate budget), never by itself.
			if (pending.length === 0 && world.settings.budget === false) throw error;
			world.coverage.count('poll: failed');
		} finally {
			for (const hit of faultsHit(world.sim, pending)) world.coverage.count(hit);
			// A fault this poll did not reach (fewer requests than its place) ends with it.
			world.sim.control.clearFaults();
		}
	}
	toString = () => `Poll(${INTERVALS[this.interval].label}${this.fault ? `, ${JSON.stringify(this.fault)}` : ''})`;
}

class ServiceClockStep implements Command {
	readonly stepMs: number;
	constructor(stepMs: number) {
		this.stepMs = stepMs;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		// Back at most as far as the promise reaches: after activation, within two minutes of the newest change.
		const floor = world.earliestPromisedStampMs;
		const step = Math.max(this.stepMs, floor - virtualTime.serviceNow);
		virtualTime.stepService(step);
		world.coverage.count(
			`clock: service ${step < 0 ? 'back' : 'forward'} ${Math.abs(step) >= MINUTE ? '≥ 1 min' : '< 1 min'}`,
		);
	}
	toString = () => `ServiceClock(${this.stepMs}ms)`;
}

class N8nClockStep implements Command {
	readonly skewMs: number;
	constructor(skewMs: number) {
		this.skewMs = skewMs;
	}
	// Documented limit: n8n's clock stepping forward by more than a minute between two polls may lose a change.
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		if (world.n8nStepped) return;
		const from = virtualTime.n8nSkewMs;
		const to = Math.min(this.skewMs, from + MINUTE);
		virtualTime.n8nSkewMs = to;
		world.n8nStepped = true;
		world.coverage.count(`clock: n8n ${to < from ? 'back' : 'forward'}`);
	}
	toString = () => `N8nClock(skew ${this.skewMs}ms)`;
}

class Lifecycle implements Command {
	readonly what: 'restart' | 'reactivate' | 'fetch test event';
	constructor(what: 'restart' | 'reactivate' | 'fetch test event') {
		this.what = what;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		world.coverage.count(`command: ${this.what}`);
		if (this.what === 'restart') world.harness.restart();
		if (this.what === 'fetch test event') await world.harness.fetchTestEvent().catch(() => []);
		if (this.what === 'reactivate') {
			const risky = world.sim.control.faults().length > 0 || world.settings.budget !== false;
			await world.reactivate().catch((error: unknown) => {
				if (!risky) throw error;
			});
		}
	}
	toString = () => `Lifecycle(${this.what})`;
}

const index = fc.nat({ max: 1_000 });
const pollArbitrary = fc
	.tuple(fc.nat({ max: INTERVALS.length - 1 }), fc.option(faultArbitrary, { freq: 2 }))
	.map(([interval, fault]) => new Poll(interval, fault ?? undefined));
const kinds = Object.keys(ALLOWED) as ChangeKind[];

export const pollingCommands = [
	fc
		.tuple(fc.constantFrom<TrackedBooking['slug']>('intro-call', 'intro-call', 'career-coaching'), index, gapArbitrary)
		.map(([slug, pick, gap]) => new Book(slug, pick, gap)),
	...kinds.map((kind) =>
		fc
			.tuple(
				index,
				gapArbitrary,
				fc.oneof(
					{ weight: 5, arbitrary: fc.constant(0) },
					{ weight: 1, arbitrary: fc.integer({ min: 1, max: 110_000 }) },
				),
			)
			.map(([which, gap, late]) => new Change(kind, which, gap, late)),
	),
	fc
		.oneof(
			// Big bursts are rare (each costs hundreds of milliseconds) but present in every long run.
			{ weight: 200, arbitrary: fc.integer({ min: 1, max: 20 }) },
			{ weight: 6, arbitrary: fc.integer({ min: 501, max: 600 }) },
			{ weight: 5, arbitrary: fc.integer({ min: 1001, max: 1100 }) },
			{ weight: 2, arbitrary: fc.integer({ min: 5001, max: 5100 }) },
		)
		.chain((size) => fc.boolean().map((awaiting) => new Burst(size, awaiting && size <= 20))),
	pollArbitrary,
	pollArbitrary,
	pollArbitrary,
	pollArbitrary,
	fc
		.oneof(fc.integer({ min: -5 * MINUTE, max: -1 }), fc.integer({ min: 1, max: 30 * MINUTE }))
		.map((step) => new ServiceClockStep(step)),
	fc.integer({ min: -MINUTE, max: MINUTE }).map((skew) => new N8nClockStep(skew)),
	fc.constantFrom('restart', 'reactivate', 'fetch test event').map((what) => new Lifecycle(what as Lifecycle['what'])),
];
