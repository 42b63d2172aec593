/**
 * Counterexamples the polling trigger's model-based test (test/model/polling.model.test.ts) found, each shrunk to a
 * minimal history and kept here as an ordinary test on both of n8n's poll schedulers. An `it.fails` states what
 * docs/polling-trigger.md promises and passes only while the defect exists.
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
	// Model seed 2 (memory) and 2 (durable), shrunk: Burst(1001), Poll(5 min), Change(notes), then calm polls. The
	// burst's 1,001 past bookings stay in the stored state (about 48 KB) after the poll that reports a change five
	// minutes newer, three minutes after the poll that read the burst; docs/polling-trigger.md ("What it stores"): a
	// burst is kept "until the burst has settled (a poll three minutes or more after the one that read it has read it
	// again, or a change two minutes newer is seen)". On the durable scheduler the next quiet poll drops it; on the
	// memory scheduler n8n saves only after a poll that emits, so the stored state keeps it until the next change.
	it.fails('a change two minutes newer than a burst lets the burst go in the poll that reports it', async () => {
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
		// What is left to remember: the 500 other bookings changed last and the one upcoming booking (about 48 bytes each).
		expect(trigger.storedStateBytes).toBeLessThan(30_000);
	});
});
