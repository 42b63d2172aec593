/**
 * Create's 409, told apart: a start that never was a free time (off the event type's times, outside the host's hours,
 * a day without hours) and one taken since the slots were read. The node reads the free times once, only after a 409,
 * names the nearest ones in the zone Start was read in, and books nothing else. The simulator refuses each start for
 * its real reason: its free times are the host's weekly hours (Asia/Tokyo, intro call Mon–Fri 09:00–17:00, every 30
 * minutes) minus bookings.
 */
import type { INode } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { START_NODE_TYPE, bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { createBookingParameters, credentialsFor, eventTypeId, freeSlots, minuteInZone, requestsTo, useTestSimulator } from '../harness/fixtures.ts';

const sim = useTestSimulator();

const SLOTS_ROUTE = '/event-types/{id}/slots';

/** The last free time before `start` and the next two after it, as the simulator lists them, written in `zone`. */
async function nearestFreeTimes(start: string, zone: string): Promise<string[]> {
	const target = Date.parse(start);
	const free = (await freeSlots(sim, 'intro-call', '2026-03-02', '2026-03-14')).map(Date.parse);
	const before = free.filter((instant) => instant < target).slice(-1);
	const after = free.filter((instant) => instant > target).slice(0, 2);
	return [...before, ...after].map((instant) => minuteInZone(new Date(instant).toISOString(), zone));
}

/** Books `start` for someone else, straight through the API: the "taken since" condition. */
async function bookedBySomeoneElse(start: string): Promise<void> {
	const response = await fetch(`${sim.baseUrl}/bookings`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sim.apiKeys.readWrite}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({
			eventTypeId: eventTypeId(sim, 'intro-call'),
			start,
			booker: { name: 'Someone Else', email: 'else@example.com', timezone: 'Asia/Tokyo' },
		}),
	});
	expect(response.status).toBe(201);
}

async function create(start: string, timezone = 'Asia/Tokyo', settings: Partial<INode> = {}) {
	const bookingsBefore = sim.control.bookings().length;
	sim.control.clearRequests();
	const result = await runWorkflow({
		nodes: [bookingServiceNode('Book', createBookingParameters(eventTypeId(sim, 'intro-call'), start), settings)],
		credentials: credentialsFor(sim),
		timezone,
	});
	const posts = requestsTo(sim, '/bookings').filter((request) => request.method === 'POST');
	return { result, posts, slotReads: requestsTo(sim, SLOTS_ROUTE), booked: sim.control.bookings().length - bookingsBefore };
}

describe('Create refused with 409: which kind of "not free"', () => {
	it('an off-grid start (09:17) is not one of the event type\'s start times; the nearest free times are named', async () => {
		const { result, posts, slotReads, booked } = await create('2026-03-03 09:17');

		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '409' });
		const nearest = await nearestFreeTimes('2026-03-03T00:17:00Z', 'Asia/Tokyo');
		expect(nearest).toEqual(['2026-03-03 09:00', '2026-03-03 09:30', '2026-03-03 10:00']);
		expect(result.error!.message).toBe(
			`The start 2026-03-03 09:17 (Asia/Tokyo) is not one of this event type's start times; no booking was made. The nearest free times: ${nearest.join(', ')}.`,
		);
		expect(result.error!.message).not.toMatch(/someone|booked it/i);
		expect(posts).toHaveLength(1);
		expect(slotReads).toHaveLength(1);
		expect(booked).toBe(0);
	});

	it.each([
		['before the host\'s hours', '2026-03-03 05:00', '2026-03-02T20:00:00Z'],
		['at the end of the host\'s hours', '2026-03-03 17:00', '2026-03-03T08:00:00Z'],
	])("a start %s (%s) is outside the host's hours", async (_case, start, utc) => {
		const { result, slotReads, booked } = await create(start);

		expect(result.error!.message).toBe(
			`The start ${start} (Asia/Tokyo) is outside the host's hours: no day around it has a free start at ${start.slice(11)}, and that day's free times run from 09:00 to 16:30; no booking was made. The nearest free times: ${(await nearestFreeTimes(utc, 'Asia/Tokyo')).join(', ')}.`,
		);
		expect(result.error!.message).not.toMatch(/no longer free|booked/);
		expect(slotReads).toHaveLength(1);
		expect(booked).toBe(0);
	});

	it('a Saturday start is on a day without free times', async () => {
		const { result } = await create('2026-03-07 10:00');

		expect(result.error!.message).toMatch(
			/^The start 2026-03-07 10:00 \(Asia\/Tokyo\) is on a day without free times for this event type \(outside the host's hours, or fully booked\); no booking was made\. The nearest free times: 2026-03-06 16:30, 2026-03-09 09:00, 2026-03-09 09:30\.$/,
		);
	});

	it.each([
		['in the middle of the day', '2026-03-03 11:00', '2026-03-03T02:00:00Z'],
		["the day's last free time", '2026-03-03 16:30', '2026-03-03T07:30:00Z'],
	])('a start taken since the slots were read (%s) says so, and offers the free times around it', async (_case, start, utc) => {
		await bookedBySomeoneElse(utc);
		const { result, posts, slotReads, booked } = await create(start);

		expect(result.error!.message).toBe(
			`The start ${start} (Asia/Tokyo) is no longer free: the same time is free on other days, so it was most likely booked (or blocked in the host's calendar) since the free times were read; no booking was made. The nearest free times: ${(await nearestFreeTimes(utc, 'Asia/Tokyo')).join(', ')}.`,
		);
		expect(result.error!.description).toMatch(/read this event type's free times around the start once .*nothing else was booked/);
		expect(posts).toHaveLength(1);
		expect(slotReads).toHaveLength(1);
		expect(booked).toBe(0);
	});

	it("names the times in the zone Start was read in (the workflow's Europe/Berlin)", async () => {
		const { result } = await create('2026-03-03 01:17', 'Europe/Berlin');

		expect(result.error!.message).toBe(
			"The start 2026-03-03 01:17 (Europe/Berlin) is not one of this event type's start times; no booking was made. The nearest free times: 2026-03-03 01:00, 2026-03-03 01:30, 2026-03-03 02:00.",
		);
	});

	it('a booking that succeeds reads no free times', async () => {
		const [first] = await freeSlots(sim, 'intro-call');
		const { result, slotReads, booked } = await create(first);

		expect(result.error).toBeUndefined();
		expect(slotReads).toEqual([]);
		expect(booked).toBe(1);
	});

	it("if reading the free times fails, the service's 409 stands, without blaming anyone", async () => {
		sim.control.addFault({ method: 'GET', path: SLOTS_ROUTE, kind: 'status', status: 503, count: 1 });
		const { result, slotReads } = await create('2026-03-03 09:17');

		expect(result.error).toMatchObject({ httpCode: '409' });
		expect(result.error!.message).toMatch(/^The requested start time is not free; no booking was made\./);
		expect(slotReads).toHaveLength(1);
	});

	it.each<[string, INode['onError']]>([
		['Continue (using regular output)', 'continueRegularOutput'],
		['Continue (using error output)', 'continueErrorOutput'],
	])('under %s the error item says the same, with 409 and slot_unavailable', async (_setting, onError) => {
		const action = bookingServiceNode('Book', createBookingParameters(eventTypeId(sim, 'intro-call'), '2026-03-03 09:17'), { onError });
		const receiver = (name: string): INode => ({ id: name, name, type: START_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: {} });
		const result = await runWorkflow({
			nodes: [action, receiver('Succeeded'), receiver('Failed')],
			connections: {
				Start: { main: [[{ node: 'Book', type: 'main', index: 0 }]] },
				Book: { main: [[{ node: 'Succeeded', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
			},
			credentials: credentialsFor(sim),
			timezone: 'Asia/Tokyo',
		});

		const item = (onError === 'continueErrorOutput' ? result.items.Failed : result.items.Succeeded)[0];
		expect(item.json.error).toEqual({
			message: expect.stringMatching(/^The start 2026-03-03 09:17 \(Asia\/Tokyo\) is not one of this event type's start times; no booking was made\. The nearest free times: /),
			description: expect.stringMatching(/^The service answered 409/),
			httpCode: '409',
			code: 'slot_unavailable',
		});
	});
});
