import { describe, expect, it } from 'vitest';
import { TokenBucket, UnverifiedWorkBudget } from '../../nodes/BookingServiceTrigger/unverifiedBudget.ts';

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

describe('UnverifiedWorkBudget', () => {
	it("a flood at one trigger empties only its share; the process's bucket bounds all of them together", () => {
		const budget = new UnverifiedWorkBudget({ burst: 10, perSecond: 2 }, { burst: 4, perSecond: 1 });
		let flooded = 0;
		for (let index = 0; index < 100; index++) if (budget.take('a', 0)) flooded += 1;
		expect(flooded).toBe(4);
		expect(budget.take('b', 0)).toBe(true);
		// Many triggers at once: never more than the process's burst, then its rate, however many there are.
		let spread = 0;
		for (let index = 0; index < 1_000; index++) if (budget.take(`t${index}`, 0)) spread += 1;
		expect(flooded + 1 + spread).toBe(10);
		let later = 0;
		for (let index = 0; index < 1_000; index++) if (budget.take(`u${index}`, 1_000)) later += 1;
		expect(later).toBe(2);
	});

	it('refuses when the process bucket is empty, whatever is left of the trigger\'s share', () => {
		const budget = new UnverifiedWorkBudget({ burst: 1, perSecond: 0 }, { burst: 2, perSecond: 0 });
		expect(budget.take('a', 0)).toBe(true);
		expect(budget.take('b', 0)).toBe(false);
		expect(budget.take('b', 0)).toBe(false);
	});

	it('tracks the shares of at most 1,000 triggers', () => {
		const budget = new UnverifiedWorkBudget();
		for (let index = 0; index < 5_000; index++) budget.take(`t${index}`, index);
		expect(budget.sharesTracked).toBe(1_000);
	});
});
