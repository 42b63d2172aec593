// Red team 8: the listing kept over all accounts (commit 6c39ada, budget.ts `listedBooking`). Promises under attack
// (docs/webhook-trigger.md, "What holds", row "API key rotated on an active workflow": "Every event runs once …;
// forged requests, however many, cost your account at most 90 requests a minute per n8n process"; "Of over 10,000
// changes made while n8n was down, the oldest may not run"; security page, Issue 37-4: "Floods at other accounts'
// triggers cost an account nothing", "a backlog of 10,000 cancellations made while n8n was down runs once within the
// retry schedule"; "A page that fails without being refused (429, timeout, 5xx) keeps the pass for the next read").
// Findings: RT8-1 (the 10,000 kept over all accounts: five other accounts' flooded reads evict A's listed backlog
// between A's retries: 79 of A's 2,000 never run), RT8-2 (a service taking 2.5 s per listing page: the newest page
// leaves the pass's page too little of the read's 4 s, it times out every read and the kept pass never moves: 107 of
// 400 never run), RT8-3 (LISTED_AFTER_MS is measured from the request's own createdAt: a forged reschedule dated 6 s
// before a kept read runs the booking's previous time after its current one ran, answered 200), RT8-4 (cursors that
// expire before the next read: every other read resets the pass after its newest page, the pass never passes depth
// 500: 282 of 1,000 never run).
// Held: the controls (no forger; a forged reschedule dated when sent), a busy account's own flood (10,000 changed
// lately, 2,000 backlog). RT8-2 and RT8-3 fixed (budget.ts: a page's own deadline, a read that goes on after its
// request stopped waiting; look-ups kept as listed); RT8-1 and RT8-4 open and stated on the security page.
import { describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { listingsKept, UNVERIFIED_REQUESTS_PER_MINUTE } from '../../nodes/BookingServiceTrigger/budget.ts';
import { rotationSetup } from './rotation-support.ts';
import { freeIntroCallStarts } from './support.ts';
import { budgetSteps, busiestMinute, firstPages, forgeAt, noSecret, otherAccounts, SCHEDULE_MS } from './red-team-budget-support.ts';

const setup = rotationSetup();
const { sim, advance } = setup;
const rotatedTriggerOfAnotherAccount = otherAccounts();
const { rotatedTriggers, attempt, lastSeq, sentSince } = budgetSteps(setup);

/** Runs `work` with n8n's (fake) clock following real time (the transport's timeouts are real-time sleeps). */
async function realTime<T>(work: () => Promise<T>): Promise<T> {
	const ticker = setInterval(() => advance(10), 10);
	try {
		return await work();
	} finally {
		clearInterval(ticker);
	}
}

/** The forger's requests at `targets` over the last `windowMs` of a wait of `delayMs`: 25 at each, then four every 10 s. */
async function floodWindow(targets: TriggerHarness[], delayMs: number, windowMs: number, statuses: Set<number>): Promise<void> {
	const flooded = Math.min(delayMs, windowMs);
	advance(delayMs - flooded);
	for (const target of targets) for (let index = 0; index < 25; index++) statuses.add(await forgeAt(target));
	for (let elapsed = 0; elapsed < flooded; elapsed += 10_000) {
		advance(Math.min(10_000, flooded - elapsed));
		for (const target of targets) for (let index = 0; index < 4; index++) statuses.add(await forgeAt(target)); // past the share's 2 refilled
	}
}

/**
 * `count` cancellations at account A (the main simulator, one rotated trigger) while n8n is down; their deliveries
 * played oldest first, `gapMs` apart, on the service's schedule. `between(delayMs)` runs in place of each wait between
 * attempts (it must advance the clock by `delayMs`); `during` before each of A's deliveries.
 */
async function backlogAtA(
	count: number,
	options: { extra?: number; own?: number; gapMs?: number; between?: (delayMs: number, own: TriggerHarness[]) => Promise<void>; during?: () => Promise<void>; wrap?: <T>(work: () => Promise<T>) => Promise<T> } = {},
) {
	const { extra = 0, own: ownCount = 0, gapMs = 50, between = async (delayMs: number) => advance(delayMs), during = async () => undefined, wrap = async (work) => await work() } = options;
	const { triggers } = await rotatedTriggers(1 + ownCount);
	const [trigger, ...own] = triggers;
	sim.control.setDeliveryMode({ shuffle: true });
	advance(60_000);
	if (extra > 0) sim.control.generateBookings({ count: extra }); // changed lately, before the backlog: no deliveries due
	advance(60_000);
	const { ids } = sim.control.generateBookings({ count });
	for (const id of ids) {
		advance(100);
		sim.control.cancel(id, { by: 'host', reason: null });
	}
	const events = sim.control.events().filter((event) => event.type === 'booking.cancelled' && ids.includes(event.data.booking.id));
	let pending = events.map((event) => JSON.stringify(event));
	const firstSeq = lastSeq();
	const refusedPerAttempt: number[] = [];
	for (const delayMs of SCHEDULE_MS) {
		await between(delayMs, own);
		const still: string[] = [];
		for (const body of pending) {
			advance(gapMs);
			await during();
			if ((await wrap(() => attempt(trigger, body))) >= 300) still.push(body);
		}
		pending = still;
		refusedPerAttempt.push(pending.length);
	}
	sim.control.clearFaults();
	const sent = sentSince(firstSeq);
	return {
		events: events.length,
		runs: trigger.executions.length,
		neverRan: pending.length,
		refusedPerAttempt,
		reads: firstPages(sent).length,
		busiest: busiestMinute(sent.map((request) => Date.parse(request.at))),
	};
}

describe('red team 8: the 10,000 bookings kept over all accounts', () => {
	const [ACCOUNTS, BOOKINGS] = [Number(process.env.RT8_ACCOUNTS ?? 5), Number(process.env.RT8_BOOKINGS ?? 3_000)];
	/** Accounts B…: other Base URLs, `bookings` changed lately at each, one rotated trigger each, a forger floods. */
	async function floodedAccounts(accounts: number, bookings: number) {
		const triggers: TriggerHarness[] = [];
		for (let seed = 2; seed < 2 + accounts; seed++) {
			const { other, trigger } = await rotatedTriggerOfAnotherAccount(seed);
			for (let made = 0; made < bookings; made += 10_000) other.control.generateBookings({ count: Math.min(10_000, bookings - made) });
			triggers.push(trigger);
		}
		const statuses = new Set<number>();
		/** The forger's requests over the last minute of each wait. */
		const between = async (delayMs: number) => await floodWindow(triggers, delayMs, 60_000, statuses);
		return { statuses, between };
	}

	// RT8-1 (a lost genuine backlog). History: six accounts in one n8n process: A (the builder's) and B–F (other users'
	// accounts on other Base URLs, 3,000 bookings changed at each in the last four days), one active trigger each,
	// each credential's key rotated (new key of the same account, old revoked, no republish). A's listing: 3,000
	// bookings changed lately (their events ran before). While n8n is down, A's host cancels 2,000 bookings (a fifth of
	// the 10,000 promised). n8n comes back; the service retries A's deliveries oldest first on its schedule (1 min, 5
	// min, 30 min, …). In the last minute before each of A's retry rounds a forger who knows B–F's webhook URLs sends
	// well-formed forged requests (no secret, bookings that do not exist) at them: 25 each (their look-ups spent), then
	// four each every 10 s. Each starts a read of its account's listing, 500 bookings, all kept in the one map of 10,000
	// shared with A: in that minute B–F list 12,500 and evict everything A's reads listed. Each of A's rounds is then
	// confirmed only by what A's own reads list during it, and A's pass (500 per 10 s, newest first, round A's 5,000)
	// meets the retries (oldest first) too late. 79 of A's 2,000 never run (refused at all ten attempts); the control
	// (B–F idle) runs all 2,000. Promise broken: "Every event runs once … Of over 10,000 changes made while n8n was
	// down, the oldest may not run" (docs/webhook-trigger.md); "Floods at other accounts' triggers cost an account
	// nothing" (security page, Issue 37-4). Open, stated (security page, Issue 37-4, what is left; builder page: the
	// 10,000 are shared by every account whose key was rotated): a fair share per account would keep A's, at a cost in
	// code and in what a single account may keep.
	it.fails('RT8-1: 2,000 cancellations at A after a rotation run once while a forger floods five other accounts’ triggers between A’s retries', async () => {
		const flood = await floodedAccounts(ACCOUNTS, BOOKINGS);
		const result = await backlogAtA(2_000, { between: flood.between, extra: Number(process.env.RT8_EXTRA ?? 3_000) });
		process.stdout.write(`[rt8-1] ${JSON.stringify(result)} forged ${JSON.stringify([...flood.statuses])} kept ${JSON.stringify(listingsKept())}\n`);
		expect([...flood.statuses]).toEqual([401]);
		expect(result.neverRan).toBe(0);
		expect(result.runs).toBe(result.events);
	}, 600_000);

	// Control for RT8-1: the same six accounts, no forger: A's 2,000 run once (675 refused at the first attempt, none after).
	it('held: 2,000 cancellations at A after a rotation run once with five other rotated accounts idle', async () => {
		await floodedAccounts(ACCOUNTS, BOOKINGS);
		const result = await backlogAtA(2_000, { extra: Number(process.env.RT8_EXTRA ?? 3_000) });
		process.stdout.write(`[rt8-1 control] ${JSON.stringify(result)}\n`);
		expect(result.neverRan).toBe(0);
	}, 600_000);
});

describe('red team 8: a pass stuck on a page that fails', () => {
	// RT8-2 (a lost genuine backlog, no forger). History: one active trigger; key rotated (new key, old revoked, no
	// republish). While n8n is down the host cancels 400 bookings. n8n comes back; the service retries oldest first on
	// its schedule. The service is slow to list: each GET /bookings page takes 2.5 s (a look-up is quick; one request
	// may take 4 s, LOOKUP_TIMEOUT_MS). A read's pages share one 4 s deadline and the newest page always comes first, so
	// the pass's page (the cursor where the last read stopped) is left 1.5 s and times out, every read. A page that
	// fails without being refused keeps the pass: the next read asks the same cursor after the newest page again, and it
	// times out again. The pass never moves; only the newest 100 are ever listed (the rest run only through the
	// trigger's 20 look-ups a round): 107 of 400 never run, refused at all ten attempts. Promise broken: "Every event runs
	// once … Of over 10,000 changes made while n8n was down, the oldest may not run" (docs/webhook-trigger.md).
	// Fixed: each page has its own 4 s deadline and the read goes on after the request that started it stopped waiting
	// (4 s at most); a request whose booking is already listed since its event does not wait at all.
	it('RT8-2: 400 cancellations after a rotation run once when the service takes 2.5 s per listing page', async () => {
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1e6, kind: 'latency', latencyMs: 2_500 });
		const result = await backlogAtA(400, { gapMs: 20, wrap: realTime });
		process.stdout.write(`[rt8-2] ${JSON.stringify(result)}\n`);
		expect(result.neverRan).toBe(0);
		expect(result.runs).toBe(result.events);
	}, 600_000);
});

describe('red team 8: a busy account’s own listing', () => {
	// Tried: account A busy (10,000 bookings changed in the last four days, their events run before), two active
	// triggers, key rotated (new key, old revoked, no republish); 2,000 cancellations while n8n is down, retried oldest
	// first; a forger floods A's second trigger over the last 5 minutes of each wait (25, then four every 10 s). A's own
	// reads go round 12,000 bookings through the 10,000 kept, but the first retry (1 min) comes before they evict the
	// backlog's: 589 refused at the first attempt, all run at the second; at most 60 requests in any 60 s.
	it('held: 2,000 cancellations at a busy account (10,000 changed lately) after a rotation run once while its other trigger is flooded', async () => {
		const statuses = new Set<number>();
		const result = await backlogAtA(2_000, {
			extra: Number(process.env.RT8_BUSY ?? 10_000),
			own: 1,
			between: async (delayMs, own) => await floodWindow(own, delayMs, 120_000, statuses),
		});
		process.stdout.write(`[rt8 busy] ${JSON.stringify(result)} forged ${JSON.stringify([...statuses])} kept ${JSON.stringify(listingsKept())}\n`);
		expect([...statuses]).toEqual([401]);
		expect(result.busiest).toBeLessThanOrEqual(UNVERIFIED_REQUESTS_PER_MINUTE);
		expect(result.neverRan).toBe(0);
	}, 600_000);
});

describe('red team 8: a forged delivery’s own createdAt', () => {
	function lastEventBody(bookingId: string, type: string): string {
		return JSON.stringify(sim.control.events().filter((entry) => entry.data.booking.id === bookingId && entry.type === type).at(-1));
	}
	const startsRun = (trigger: TriggerHarness) => trigger.executions.map((execution) => (execution.items[0].json.booking as { start: string }).start);

	// RT8-3 (a forged request runs a superseded state). History: one active trigger; key rotated (new key, old
	// revoked, no republish); a booking made (its creation runs through a look-up). A forger spends the trigger's
	// look-ups with forged requests (no secret, bookings that do not exist). The booker moves the booking to start1; the
	// service's delivery of that move arrives at once, finds the look-ups spent and starts a listing read at r, which
	// keeps the booking as moved to start1; it is refused (r < its createdAt + 5 s) for a retry. 5 s later the booker
	// moves it again, to start2; that delivery finds a refilled look-up and runs with start2. 1 s later the forger
	// posts a forged `booking.rescheduled` of the booking with a createdAt it chose, 6 s before r: the look-ups are
	// spent, the listing is not due, the kept booking (start1, read at r ≥ createdAt + 5 s) is taken as showing it, and
	// its fact (the start1 state) never ran: it runs, after start2. The workflow's last word on the booking is the time
	// it no longer has (a calendar synced from it keeps the wrong slot). The 5 s (LISTED_AFTER_MS) is measured from the
	// request's createdAt, which a forger writes. Promise broken: "Forged, stale or garbage requests: Refused (401), no
	// execution" (docs/webhook-trigger.md); security page: "Only a booking listed 5 s or more after the delivery's
	// `createdAt` confirms it; an older one may show the booking before that change (a reschedule ran with the
	// previous time …)".
	// Fixed: a look-up keeps the booking it read as listed too (budget.ts keepListed), so the forged request finds the
	// start2 state, whose fact ran: acknowledged (2xx) without a run, as the security page's item 5 says of a request
	// whose booking confirms a change that already ran.
	it('RT8-3: a forged reschedule with an old createdAt does not run the booking’s previous time after its current one', async () => {
		const { status, ran, current } = await staleHistory((readAt) => readAt - 6_000);
		process.stdout.write(`[rt8-3] forged reschedule answered ${status}; runs' starts ${JSON.stringify(ran)}; booking now at ${current}\n`);
		expect(ran).toHaveLength(2); // the creation and start2: nothing ran from the forged request
		expect(ran.at(-1)).toBe(current);
		expect(status).toBe(200);
	}, 120_000);

	// Control for RT8-3: the same history, the forged reschedule carrying the moment it is sent as createdAt: refused (401), nothing runs.
	it('held: a forged reschedule with a createdAt of its own moment, after the same history, is refused and runs nothing', async () => {
		const { status, ran, current } = await staleHistory(() => Date.now());
		process.stdout.write(`[rt8-3 control] forged reschedule answered ${status}; runs' starts ${JSON.stringify(ran)}\n`);
		expect(status).toBe(401);
		expect(ran.at(-1)).toBe(current);
	}, 120_000);

	/** The history of RT8-3; the forged reschedule's createdAt from the read's start r. */
	async function staleHistory(createdAtOf: (readAt: number) => number) {
		const { triggers, newKey } = await rotatedTriggers(1);
		const [trigger] = triggers;
		sim.control.setDeliveryMode({ shuffle: true }); // the service's attempts are played by hand
		advance(60_000);
		const booking = await setup.bookLatest(newKey);
		const { starts } = await freeIntroCallStarts(sim, newKey);
		expect(await attempt(trigger, JSON.stringify(sim.control.events().find((entry) => entry.data.booking.id === booking.id)))).toBe(200);
		for (let index = 0; index < 25; index++) await forgeAt(trigger); // the look-ups spent (and a read)
		advance(10_000);
		for (let index = 0; index < 2; index++) await forgeAt(trigger); // the 2 refilled look-ups spent
		sim.control.reschedule(booking.id, { start: starts[0], by: 'booker' });
		const readsBefore = firstPages(sentSince(0)).length;
		const readAt = Date.now();
		expect(await attempt(trigger, lastEventBody(booking.id, 'booking.rescheduled'))).toBe(401); // starts the read at r
		expect(firstPages(sentSince(0)).length).toBe(readsBefore + 1);
		advance(5_000); // one look-up refilled
		sim.control.reschedule(booking.id, { start: starts[1], by: 'booker' });
		expect(await attempt(trigger, lastEventBody(booking.id, 'booking.rescheduled'))).toBe(200);
		expect(startsRun(trigger).at(-1)).toBe(starts[1]);
		advance(1_000);
		const forged = JSON.stringify({ id: 'evt_rt8stale00000000000000', type: 'booking.rescheduled', createdAt: new Date(createdAtOf(readAt)).toISOString(), apiVersion: 'v1', data: { booking: { id: booking.id } } });
		const status = (await trigger.post(forged, noSecret(forged))).status;
		return { status, ran: startsRun(trigger), current: starts[1] };
	}
});

describe('red team 8: a cursor that lives less than 10 s', () => {
	// RT8-4 (a lost genuine backlog, no forger). History: one active trigger; key rotated (new key, old revoked, no
	// republish). While n8n is down the host cancels 1,000 bookings. n8n comes back; the service retries oldest first on
	// its schedule. The service's cursors expire within seconds (the contract shows neither their format nor their
	// lifetime): a cursor is answered 400 when asked by the next read, 10 s or more after it was given. A read that
	// starts a pass reads the newest page and four more (depth 500); the next read asks that pass's cursor, is refused,
	// resets the pass and stops after its newest page; the read after starts again from the newest. The pass never goes
	// deeper than 500: the older half of the backlog is listed by no read and runs only through the trigger's 20
	// look-ups a round. (Emulated: of every five listing pages asked with a cursor, the fifth, the first of the read
	// that goes on with the pass, is answered 400.) Promise broken: "Every event runs once … Of over 10,000 changes
	// made while n8n was down, the oldest may not run" (docs/webhook-trigger.md). Open, stated (security page): the
	// service's paging offers no way back past its newest changes but a cursor, so if cursors live less than the 10 s
	// between reads, a listing reaches only the newest 500 changes and the rest wait for look-ups.
	it.fails('RT8-4: 1,000 cancellations after a rotation run once when the service’s cursors expire before the next read', async () => {
		for (let fault = 0; fault < 1_000; fault++)
			sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, skip: 4, kind: 'status', status: 400, code: 'validation_failed', query: { cursor: '*' } });
		const result = await backlogAtA(1_000);
		process.stdout.write(`[rt8-4] ${JSON.stringify(result)}\n`);
		expect(result.neverRan).toBe(0);
		expect(result.runs).toBe(result.events);
	}, 600_000);
});
