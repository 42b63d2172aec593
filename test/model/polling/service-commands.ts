/**
 * What the service does in a polling history, as fast-check commands: bookings made, paid (or not), moved (also back
 * to their first time), cancelled, marked no-show or completed, notes edited — some written late — and bursts of
 * silent bookings past every cap of the trigger. Each counts its coverage label as it runs.
 */
import fc from 'fast-check';

import type { Booking } from '../../simulator/index.ts';
import { virtualTime } from '../virtual-time.ts';
import type { PollingWorld, TrackedBooking } from './world.ts';
import { halfHoursOf, startsOf } from './world.ts';

export type Model = Record<string, never>;
export type Command = fc.AsyncCommand<Model, PollingWorld>;

/** The gap since the last step: often the same millisecond, usually seconds. */
export const gapArbitrary = fc.oneof(
	{ weight: 2, arbitrary: fc.constant(0) },
	{ weight: 5, arbitrary: fc.integer({ min: 1, max: 30_000 }) },
);

export class Book implements Command {
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
		const free = startsOf(this.slug).filter((start) =>
			halfHoursOf(this.slug, start).every((half) => !world.used.has(half)),
		);
		const start = free[this.pick % free.length];
		virtualTime.advance(this.gapMs);
		for (const half of halfHoursOf(this.slug, start)) world.used.add(half);
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

export type ChangeKind =
	| 'pay'
	| 'fail payment'
	| 'reschedule'
	| 'reschedule back'
	| 'cancel'
	| 'no-show'
	| 'complete'
	| 'notes';

export const ALLOWED: Record<ChangeKind, string[]> = {
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
export class Change implements Command {
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
					const free = startsOf(target.slug).filter((start) =>
						halfHoursOf(target.slug, start).every((half) => !world.used.has(half)),
					);
					const start = free[(this.which * 7) % free.length];
					for (const half of halfHoursOf(target.slug, start)) world.used.add(half);
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
	'201-500 (pages)',
	'501-600 (past 500 remembered)',
	'1001-1100 (past a chunk)',
	'5001-5100 (past a poll)',
];

export class Burst implements Command {
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
