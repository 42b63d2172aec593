/**
 * Counterexamples the polling trigger's model-based test (test/model/polling.model.test.ts) found, each shrunk to a
 * minimal history and kept here as an ordinary test on both of n8n's poll schedulers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';

import { useTestSimulator } from '../harness/fixtures.ts';
import { bookingId, pollingFixtures } from '../harness/polling-fixtures.ts';
import type { PollScheduler } from '../harness/poller.ts';
import { BurstThenFaultyPoll } from '../model/polling/commands.ts';
import { runHistory } from '../model/polling/history.ts';
import { Lifecycle, Poll, ServiceClockStep } from '../model/polling/n8n-commands.ts';
import { Book, Burst, Change } from '../model/polling/service-commands.ts';
import { virtualTime } from '../model/virtual-time.ts';

// As in the model: a 429's wait passes in virtual time (only while a replayed history runs).
vi.mock('n8n-workflow', async (importOriginal) => {
	const actual = await importOriginal<Record<string, unknown>>();
	const { virtualTime: time } = await import('../model/virtual-time.ts');
	return { ...actual, sleep: time.sleep };
});

const sim = useTestSimulator();
const { poller, book } = pollingFixtures(sim);

/** n8n's clock and the service's move on together (Date is faked; the simulator's clock is Date.now() + an offset). */
const tick = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1_000);

afterEach(() => {
	vi.useRealTimers();
	virtualTime.stop();
});

const none = { budget: 'none', filtered: false, before: [] } as const;
const once429 = { kind: '429', retryAfterSeconds: 0, times: 1, page: 0 } as const;
const fail5xxPage1 = { kind: '5xx', status: 500, page: 1 } as const;

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

	// Model seed 35036 (memory; fails on both), shrunk. The service's clock is two minutes ahead; 1,001 changes, polled (a 429 with
	// Retry-After 0 on each poll's first request, waited out), one booking, then n8n restarts: the drain after the
	// restart reports the 1,001 again, with the same eventIds. docs/polling-trigger.md: "A change stamped ahead of
	// n8n's clock (tested: 10 minutes) is reported once, and the changes after it too". Fixed: an unfinished scan
	// keeps what its remaining chunks list again.
	it('changes stamped two minutes ahead, then a restart: each reported once', async () => {
		await runHistory(sim, scheduler, { ...none, before: [] }, [
			new ServiceClockStep(120_001),
			new BurstThenFaultyPoll(new Burst(1_001, false), once429, 0),
			new Poll(0, once429),
			new Book('intro-call', 0, 1),
			new Lifecycle('restart'),
		]);
	});

	// Model seed 35037 (memory; fails on both), shrunk and replayed with the service's clock stepping back 2 min 1 ms:
	// 10 s ahead, a quiet poll, 20 changes, the clock steps back to 110 s behind, the workflow is deactivated and
	// activated, 14 changes (written 110 s after the time they carry, but 2 min 1 ms before the newest change), a poll:
	// a change of the 14 is lost. docs/polling-trigger.md as rewritten says only "a change the service writes more than
	// two minutes after the time it stamps on it ... is lost"; the earlier text also named "a clock step back of more
	// than two minutes", which is what the trigger does (its overlap counts from the newest change seen). The model
	// keeps the earlier reading (within 110 s of the newest change). Fixed: an unfinished scan keeps what its remaining
	// chunks list again.
	it('changes written 110 s late, after the service clock stepped back 2 min 1 ms: all reported', async () => {
		await runHistory(sim, scheduler, { ...none, before: [] }, [
			new ServiceClockStep(10_001),
			new Poll(1, undefined),
			new Burst(20, false),
			new ServiceClockStep(-120_001, false),
			new Lifecycle('reactivate'),
			new Burst(14, false),
			new Poll(0, undefined),
		]);
	});

	// Model seed 350501 (memory), shrunk: a booking made before activation, 501 changes, a poll whose second page fails
	// (5xx), 501 more, a poll whose first request meets five 429s (Retry-After 0), a quiet poll, the booking moved (1 ms
	// late), a poll whose second page fails, the booking completed and another paid: a booking of the bursts is
	// reported Created twice, with the same eventId. Fails on main too; open: it.fails.
	it('two bursts of 501 read across failed pages and 429s, then a move and a completion: each reported once', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call'] }, [
			new Burst(501, false),
			new Poll(1, fail5xxPage1),
			new BurstThenFaultyPoll(new Burst(501, false), { kind: '429', retryAfterSeconds: 0, times: 5, page: 0 }, 0),
			new Poll(1, undefined),
			new Change('reschedule', 0, 1, 1),
			new Poll(0, fail5xxPage1),
			new Change('complete', 0, 1, 0),
			new Change('pay', 0, 1, 0),
		]);
	}, 60_000);

	// Model seed 350504 (durable), shrunk: 201 changes, a poll whose listing connection drops on request 4; 5,001
	// changes in one millisecond, a poll whose first request meets a 429 (Retry-After 0), a poll: changes of the 5,001
	// were never reported (fails on main too): the unfinished scan (top 00:00:01) resumed under 5,001 newer changes; its
	// chunks, all skipped as newer than its top, were split page by page (31, 33, 35, 38 marks on successive polls, ~190
	// pages each), so the scan never ended. Fixed: a chunk's start moves past pages holding only changes newer than top.
	it('201 changes read across a dropped connection, then 5,001 at once: all reported', async () => {
		await runHistory(sim, scheduler, { ...none, before: [] }, [
			new BurstThenFaultyPoll(new Burst(201, false), { kind: 'drop', page: 4 }, 0),
			new BurstThenFaultyPoll(new Burst(5_001, false), once429, 0),
			new Poll(0, undefined),
		]);
	}, 60_000);

	// Model seed 35035 (durable), shrunk: 5,001 changes in one millisecond (past the 5,000 a poll reports), the
	// service's clock steps 100 s ahead, a booking, a poll a minute later, the booking cancelled: the calm polls after
	// report the first 5,000 again, with the same eventIds. docs/polling-trigger.md: "Nothing reported is reported
	// again, however large a burst", and changes stamped ahead are reported once. Fixed: the position never passes
	// n8n's clock.
	it(
		'5,001 changes at once, then the service clock 100 s ahead: each reported once',
		async () => {
			await runHistory(sim, scheduler, { ...none, before: [] }, [
				new Burst(5_001, false),
				new ServiceClockStep(100_658),
				new Book('intro-call', 0, 19_343),
				new Poll(0, undefined),
				new Change('cancel', 0, 1, 0),
			]);
		},
		60_000,
	);
	// Model seed 5300 (both schedulers, a 5,000-history run on the merged code), shrunk: two bookings made before
	// activation; right after it, one marked no-show (1 ms late), then moved (2 ms late), two notes edits (1 and 2 ms
	// late), a poll a minute later: "the booking's last change (confirmed, moved) is never reported". A flaw of the
	// reference, not the node: the second notes edit, 2 ms late, is stamped like the move, so two versions shared status,
	// times and stamp and the reference matched the trigger's one item (the booking as it ended) to the earlier.
	// Versions are now told apart by the booker's notes too.
	it('right after activation, a booking marked no-show then moved, written 1–2 ms late: its last change is reported', async () => {
		await runHistory(sim, scheduler, { ...none, before: ['intro-call', 'intro-call'] }, [
			new Change('no-show', 0, 1, 1),
			new Change('reschedule', 0, 2, 2),
			new Change('notes', 57, 0, 1),
			new Change('notes', 9, 0, 2),
			new Poll(0, undefined),
		]);
	});

	// Model seed 5300 (memory, a 5,000-history run; path 4321:1:1:4:…, replay "///r:P"), shrunk: a budget of six requests
	// an hour; 376 changes, a poll whose first request meets a 429 (Retry-After 0); a poll five minutes later; 553 changes,
	// a poll whose first listing fails (500); a poll five minutes later; 553 changes; a payment: what n8n stores is 28
	// bytes over the bound the model reads from docs/polling-trigger.md (64 bytes a booking remembered): the finishing
	// chunk kept everything from the old position less the overlap, both bursts. Fixed with the one below.
	it('bursts of 376 and 553 under a budget of six an hour, polls failing: the state stays within its bound', async () => {
		await runHistory(sim, scheduler, { budget: 'tiny (6 an hour)', filtered: false, before: [] }, [
			new BurstThenFaultyPoll(new Burst(376, false), once429, 0),
			new Poll(1, undefined),
			new BurstThenFaultyPoll(new Burst(553, false), { kind: '5xx', status: 500, page: 0 }, 0),
			new Poll(1, undefined),
			new Burst(553, false),
			new Change('pay', 0, 1, 0),
		]);
	}, 60_000);

	// Model seed 5300 (durable, a 5,000-history run; path 2105:0:0:0:4:…, replay "/////2:/"), shrunk: the service's clock
	// a minute ahead; 501 changes, a poll whose first listing fails (500); 201 changes, a poll whose first request meets
	// five 429s (Retry-After 0); a quiet poll; a booking; a poll five minutes later whose second request meets a 429
	// (Retry-After 60); its notes edited: a booking of the 501 is reported Created twice, with the same eventId. The
	// scan's top booking changed again meanwhile, so its position stayed below the top, while its chunks had let changes
	// go expecting the next scan to start an overlap before the top. Fixed: a finished scan's position is its top.
	it('the service a minute ahead, bursts read across failed pages, a booking polled through a 429: reported once', async () => {
		await runHistory(sim, scheduler, { ...none, before: [] }, [
			new ServiceClockStep(60_001),
			new BurstThenFaultyPoll(new Burst(501, false), { kind: '5xx', status: 500, page: 0 }, 0),
			new BurstThenFaultyPoll(new Burst(201, false), { kind: '429', retryAfterSeconds: 0, times: 5, page: 0 }, 0),
			new Poll(0, undefined),
			new Book('intro-call', 0, 1),
			new Poll(1, { kind: '429', retryAfterSeconds: 60, times: 1, page: 1 }),
			new Change('notes', 0, 1, 0),
		]);
	}, 60_000);
});
