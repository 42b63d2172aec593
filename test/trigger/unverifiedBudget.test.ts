import { describe, expect, it } from 'vitest';
import { TokenBucket } from '../../nodes/BookingServiceTrigger/unverifiedBudget.ts';

function takenOf(bucket: TokenBucket, attempts: number, nowMs: number): number {
	let taken = 0;
	for (let index = 0; index < attempts; index++) if (bucket.take(nowMs)) taken += 1;
	return taken;
}

describe('TokenBucket', () => {
	it('gives a burst, then the rate, never more than the burst after a long pause', () => {
		const bucket = new TokenBucket({ burst: 5, perSecond: 2 });
		expect(takenOf(bucket, 100, 0)).toBe(5);
		expect(takenOf(bucket, 100, 1_000)).toBe(2);
		expect(takenOf(bucket, 100, 3_600_000)).toBe(5);
	});

	it('refills nothing when the clock is set back', () => {
		const bucket = new TokenBucket({ burst: 3, perSecond: 1 });
		expect(takenOf(bucket, 3, 10_000)).toBe(3);
		expect(takenOf(bucket, 3, 0)).toBe(0);
		expect(takenOf(bucket, 3, 1_000)).toBe(1);
	});
});
