/**
 * Counterexamples the polling trigger's model-based test (test/model/polling.model.test.ts) found, each shrunk to a
 * minimal history and kept here as an ordinary test on both of n8n's poll schedulers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import { useTestSimulator } from '../harness/fixtures.ts';
import { bookingId, pollingFixtures } from '../harness/polling-fixtures.ts';
import type { PollScheduler } from '../harness/poller.ts';

const sim = useTestSimulator();
const { poller, book } = pollingFixtures(sim);

/** n8n's clock and the service's move on together (Date is faked; the simulator's clock is Date.now() + an offset). */
const tick = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1_000);

afterEach(() => {
	vi.useRealTimers();
});

describe.each<PollScheduler>(['memory', 'durable'])('%s scheduler', (scheduler) => {
	// Model seed 2, shrunk: Burst(1001), Poll(5 min), Change(notes), then calm polls three minutes apart. The poll that
	// reports a change five minutes newer than the burst still keeps the burst's 1,001 bookings (about 48 KB); the
	// docs promised then that such a change lets a burst go, and now promise only "until a poll three minutes later has
	// read it again". This holds the second: the burst goes, and what n8n stores next is small.
	it('a burst read, then a change five minutes newer: the burst goes once a later poll has read past it', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const trigger = poller(undefined, undefined, { scheduler });
		await trigger.poll();
		tick(1);
		sim.control.generateBookings({ count: 1_001 });
		tick(5 * 60);
		expect(await trigger.poll()).toHaveLength(1_001);
		tick(1);
		const made = await book(sim);
		tick(3 * 60);
		expect((await trigger.poll()).map(bookingId)).toEqual([made.id]);
		tick(3 * 60);
		expect(await trigger.poll()).toEqual([]);
		tick(1);
		const next = await book(sim, 'intro-call', 1);
		tick(3 * 60);
		expect((await trigger.poll()).map(bookingId)).toEqual([next.id]);
		// What is left: the 500 other bookings changed last and the two upcoming ones (about 48 bytes each).
		expect(trigger.storedStateBytes).toBeLessThan(30_000);
	});
});
