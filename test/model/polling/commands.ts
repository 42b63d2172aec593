/**
 * The steps a polling history is made of, weighted: polls and changes often, big bursts rarely (each costs hundreds of
 * milliseconds) but in every long run.
 */
import fc from 'fast-check';

import { faultArbitrary } from '../faults.ts';
import type { FaultChoice } from '../faults.ts';
import { INTERVALS, Lifecycle, N8nClockStep, Poll, ServiceClockStep } from './n8n-commands.ts';
import type { ChangeKind } from './service-commands.ts';
import { ALLOWED, Book, Burst, Change, gapArbitrary } from './service-commands.ts';
import type { PollingWorld, TrackedBooking } from './world.ts';
import { MINUTE } from './world.ts';

export { BURST_BUCKETS } from './service-commands.ts';
export { INTERVALS } from './n8n-commands.ts';

const index = fc.nat({ max: 1_000 });
const pollArbitrary = fc
	.tuple(fc.nat({ max: INTERVALS.length - 1 }), fc.option(faultArbitrary, { freq: 2 }))
	.map(([interval, fault]) => new Poll(interval, fault ?? undefined));
const kinds = Object.keys(ALLOWED) as ChangeKind[];

/**
 * A burst of several pages, then a poll a minute later with a fault on one of its pages (`at`: how far into them): a
 * poll has more than three listing requests only with a backlog, so faults past the third come from here.
 */
export class BurstThenFaultyPoll implements fc.AsyncCommand<Record<string, never>, PollingWorld> {
	readonly burst: Burst;
	readonly fault: FaultChoice;
	readonly at: number;
	constructor(burst: Burst, fault: FaultChoice, at: number) {
		this.burst = burst;
		this.fault = fault;
		this.at = at;
	}
	check = () => true;
	async run(model: Record<string, never>, world: PollingWorld) {
		await this.burst.run(model, world);
		// Two lists of bookings awaiting payment, then a page per 100 changes (at most 50 a poll).
		const page = 2 + Math.floor(this.at * Math.min(50, Math.ceil(this.burst.size / 100)));
		await new Poll(0, { ...this.fault, page }).run(model, world);
	}
	toString = () => `${this.burst.toString()}, then Poll(1 min, ${JSON.stringify(this.fault)} at ${this.at})`;
}

const burstThenFaultyPoll = fc
	.tuple(
		fc.oneof(
			{ weight: 20, arbitrary: fc.integer({ min: 201, max: 600 }) },
			{ weight: 3, arbitrary: fc.integer({ min: 1001, max: 1100 }) },
			{ weight: 1, arbitrary: fc.integer({ min: 5001, max: 5100 }) },
		),
		faultArbitrary,
		fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
	)
	.map(([size, fault, at]) => new BurstThenFaultyPoll(new Burst(size, false), fault, at));

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
	// One poll slot in four: a burst of pages, then a poll with a fault on one of them.
	fc.oneof({ weight: 3, arbitrary: pollArbitrary }, { weight: 1, arbitrary: burstThenFaultyPoll }),
	fc
		.oneof(fc.integer({ min: -5 * MINUTE, max: -1 }), fc.integer({ min: 1, max: 30 * MINUTE }))
		.map((step) => new ServiceClockStep(step)),
	fc.integer({ min: -MINUTE, max: MINUTE }).map((skew) => new N8nClockStep(skew)),
	fc.constantFrom('restart', 'reactivate', 'fetch test event').map((what) => new Lifecycle(what as Lifecycle['what'])),
];
