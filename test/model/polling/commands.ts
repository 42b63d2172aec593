/**
 * The steps a polling history is made of, weighted: polls and changes often, big bursts rarely (each costs hundreds of
 * milliseconds) but in every long run.
 */
import fc from 'fast-check';

import { faultArbitrary } from '../faults.ts';
import { INTERVALS, Lifecycle, N8nClockStep, Poll, ServiceClockStep } from './n8n-commands.ts';
import type { ChangeKind } from './service-commands.ts';
import { ALLOWED, Book, Burst, Change, gapArbitrary } from './service-commands.ts';
import type { TrackedBooking } from './world.ts';
import { MINUTE } from './world.ts';

export { BURST_BUCKETS } from './service-commands.ts';
export { INTERVALS } from './n8n-commands.ts';

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
