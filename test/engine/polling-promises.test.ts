/**
 * The polling trigger's promises where its bounded state used to break them (issue 35): a burst larger than what it
 * keeps for reading the overlap again, one change stamped ahead by the service's clock, many bookings awaiting payment
 * with a small rate budget, and a booking made and moved while one poll reads it. Each was a defect of the trigger
 * before (the test failed); each runs on both of n8n's poll schedulers, the 51,500 burst on the durable one only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeExecutionData } from 'n8n-workflow';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { MAX_IN_OVERLAP } from '../../nodes/BookingServicePollingTrigger/known.ts';
import { freeSlots, useTestSimulator } from '../harness/fixtures.ts';
import { ALL_EVENTS, bookingId, kindsOf, pollingFixtures } from '../harness/polling-fixtures.ts';
import { PollHarness } from '../harness/poller.ts';
import type { PollScheduler } from '../harness/poller.ts';

const sim = useTestSimulator();
const { poller, book } = pollingFixtures(sim);

/** n8n's clock and the service's move on together (Date is faked; the simulator's clock is Date.now() + an offset). */
const tick = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1_000);

const repeated = (items: INodeExecutionData[]) => {
	const counts = new Map<string, number>();
	for (const item of items) counts.set(bookingId(item), (counts.get(bookingId(item)) ?? 0) + 1);
	return [...counts].filter(([, count]) => count > 1);
};

/** A proxy in front of the simulator that runs `beforePage(query)` before forwarding each GET /bookings. */
async function pageHook(target: string, beforePage: (query: URLSearchParams) => void) {
	const server = createServer((request, response) => {
		const url = new URL(request.url ?? '/', 'http://proxy');
		if (request.method === 'GET' && url.pathname.endsWith('/bookings')) beforePage(url.searchParams);
		const headers: Record<string, string> = {};
		for (const name of ['authorization', 'accept']) {
			const value = request.headers[name];
			if (typeof value === 'string') headers[name] = value;
		}
		void fetch(`${target}${url.pathname.replace(/^\/v1/, '')}${url.search}`, { headers })
			.then(async (answer) => {
				response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
				response.end(Buffer.from(await answer.arrayBuffer()));
			})
			.catch(() => response.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

afterEach(() => {
	vi.useRealTimers();
	sim.control.setRateLimit(false);
});

describe.each<PollScheduler>(['memory', 'durable'])('%s scheduler', (scheduler) => {
	// On the durable scheduler only (76–98 s a scheduler, the longest test of npm test): the memory scheduler's drain
	// past MAX_IN_OVERLAP is polling-redteam-5's 60,000 in one millisecond.
	it.runIf(scheduler === 'durable')('a burst larger than the overlap memory (an import of 51,500 within a minute, polled every minute) is reported once', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const trigger = poller(ALL_EVENTS, undefined, { scheduler });
		await trigger.poll();
		tick(60);
		const count = MAX_IN_OVERLAP + 1_500;
		for (let made = 0; made < count; made += 1_000) {
			sim.control.generateBookings({ count: Math.min(1_000, count - made) });
			tick(1);
		}
		const all: INodeExecutionData[] = [];
		for (let poll = 0; poll < 20; poll++) {
			tick(60);
			all.push(...(await trigger.poll()));
		}
		expect(new Set(all.map(bookingId)).size).toBe(count);
		expect(repeated(all).length, 'bookings reported more than once').toBe(0);
		expect(all).toHaveLength(count);
	}, 600_000);

	it('one change stamped 10 minutes ahead by the service, then its clock is right again: the next bookings are reported', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		sim.control.setClock(new Date().toISOString()); // the service's clock agrees with n8n's
		const trigger = poller(ALL_EVENTS, undefined, { scheduler });
		await trigger.poll();
		tick(60);
		const now = sim.control.now().now;
		sim.control.setClock(new Date(Date.parse(now) + 10 * 60_000).toISOString());
		const [ahead] = sim.control.generateBookings({ count: 1 }).ids;
		sim.control.setClock(now);
		const all = [...(await trigger.poll())];
		const made: string[] = [];
		for (let minute = 0; minute < 6; minute++) {
			tick(60);
			if (minute % 2 === 0) made.push(...sim.control.generateBookings({ count: 1 }).ids);
			tick(1);
			all.push(...(await trigger.poll()));
		}
		for (let minute = 0; minute < 12; minute++) {
			tick(60);
			all.push(...(await trigger.poll()));
		}
		expect(kindsOf(all).sort()).toEqual(
			[ahead, ...made].map((id) => ['booking.created', id]).sort(),
		);
	}, 60_000);

	it('600 bookings awaiting payment and a budget of 6 requests an hour: an ordinary booking is still reported', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		const trigger = poller(ALL_EVENTS, undefined, { scheduler });
		await trigger.poll();
		tick(60);
		sim.control.generateBookings({ count: 600, status: 'awaiting_payment' });
		const made = await book(sim);
		tick(1);
		sim.control.setRateLimit({ requests: 6, perSeconds: 3_600 });
		const all: INodeExecutionData[] = [];
		const failures: string[] = [];
		for (let poll = 0; poll < 3 && all.length === 0; poll++) {
			tick(3_600); // the next rate window
			try {
				all.push(...(await trigger.poll()));
			} catch (error) {
				failures.push((error as Error).message);
			}
		}
		expect(failures).toEqual([]);
		expect(kindsOf(all)).toEqual([['booking.created', made.id]]);
	}, 60_000);

	it('a booking made after activation and moved while one poll reads its eight pages (700 other changes) is Created', async () => {
		vi.useFakeTimers({ toFake: ['Date'] });
		let moveOnPage: (() => void) | undefined;
		// The second page of changes: one with a cursor, listing all statuses.
		const proxy = await pageHook(sim.baseUrl, (query) => {
			if (query.has('cursor') && !query.has('status')) moveOnPage?.();
		});
		try {
			const trigger = new PollHarness({
				baseUrl: proxy.baseUrl,
				apiKey: sim.apiKeys.readOnly,
				parameters: ALL_EVENTS,
				scheduler,
			});
			await trigger.poll();
			tick(60);
			const made = await book(sim);
			tick(1);
			sim.control.generateBookings({ count: 700 }); // an import of past bookings
			tick(300);
			const other = await book(sim, 'intro-call', 3);
			tick(1);
			const [slot] = (await freeSlots(sim, 'intro-call')).slice(-1);
			let moved = false;
			moveOnPage = () => {
				if (moved) return;
				moved = true;
				sim.control.reschedule(made.id, { start: slot, by: 'booker' });
			};
			// A poll reads page after page; the booking is moved once the first page was read.
			const all = [...(await trigger.poll())];
			moveOnPage = undefined;
			expect(moved).toBe(true);
			expect(all.map(bookingId)).toContain(other.id);
			for (let poll = 0; poll < 3; poll++) {
				tick(60);
				all.push(...(await trigger.poll()));
			}
			const ofMade = all.filter((item) => bookingId(item) === made.id).map((item) => item.json.eventType);
			expect(ofMade).toEqual(['booking.created']);
		} finally {
			await proxy.close();
		}
	}, 60_000);
});
