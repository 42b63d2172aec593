/**
 * Booking → Get Many and Get, run as workflows in n8n's engine against the simulator: paging to the end, Limit,
 * every filter, several statuses merged, Simplify and localized names.
 */
import { describe, expect, it } from 'vitest';

import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import {
	credentialsFor,
	eventTypeId,
	requestsTo,
	useTestSimulator,
} from '../harness/fixtures.ts';

const GENERATED = 1200;
const sim = useTestSimulator({ generatedBookings: GENERATED }, { beforeEachTest: 'clearRequests' });

const IN_FLIGHT = ['held', 'awaiting_payment'];

async function getMany(parameters: Record<string, unknown>) {
	const result = await runWorkflow({
		nodes: [
			bookingServiceNode('Bookings', { resource: 'booking', operation: 'getMany', ...parameters }),
		],
		credentials: credentialsFor(sim),
	});
	expect(result.error).toBeUndefined();
	return result.items.Bookings.map((item) => item.json as Record<string, any>);
}

describe('Return All', () => {
	it(`pages through more than ${GENERATED} bookings and returns each exactly once, newest first`, async () => {
		const bookings = await getMany({ returnAll: true });

		const expected = sim.control
			.bookings()
			.filter((booking) => !IN_FLIGHT.includes(booking.status));
		expect(expected.length).toBeGreaterThan(1000);
		const ids = bookings.map((booking) => booking.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(new Set(ids)).toEqual(new Set(expected.map((booking) => booking.id)));
		const createdAt = bookings.map((booking) => Date.parse(booking.createdAt));
		expect(createdAt).toEqual([...createdAt].sort((a, b) => b - a));

		const pages = requestsTo(sim, '/bookings');
		expect(pages).toHaveLength(Math.ceil(expected.length / 100));
		expect(pages.every((page) => page.query.limit === '100' && page.status === 200)).toBe(true);
		// Each page after the first continues from the cursor the previous one returned: no cursor is used twice.
		const cursors = pages.slice(1).map((page) => page.query.cursor);
		expect(new Set(cursors).size).toBe(cursors.length);
	});
});

describe('Limit', () => {
	it('asks for exactly as many as it needs: 150 is one page of 100 and one of 50', async () => {
		const bookings = await getMany({ returnAll: false, limit: 150 });

		expect(bookings).toHaveLength(150);
		expect(requestsTo(sim, '/bookings').map((page) => page.query.limit)).toEqual(['100', '50']);
	});

	it('a small limit is a single small page', async () => {
		const bookings = await getMany({ returnAll: false, limit: 7 });

		expect(bookings).toHaveLength(7);
		expect(requestsTo(sim, '/bookings').map((page) => page.query.limit)).toEqual(['7']);
	});
});

describe('filters', () => {
	it('several statuses: one listing per status, merged in the chosen order, each booking once', async () => {
		const statuses = ['held', 'cancelled', 'no_show'];
		const bookings = await getMany({
			returnAll: true,
			filters: { status: statuses },
			sort: { order: 'start' },
		});

		const expected = sim.control.bookings().filter((booking) => statuses.includes(booking.status));
		expect(expected.length).toBeGreaterThan(0);
		expect(bookings.map((booking) => booking.id).sort()).toEqual(
			expected.map((booking) => booking.id).sort(),
		);
		const starts = bookings.map((booking) => Date.parse(booking.start));
		expect(starts).toEqual([...starts].sort((a, b) => a - b));
		const requested = requestsTo(sim, '/bookings').map((page) => page.query.status);
		expect(new Set(requested)).toEqual(new Set(statuses));
	});

	it('one status is a single listing with that status', async () => {
		const bookings = await getMany({ returnAll: true, filters: { status: ['awaiting_payment'] } });

		expect(bookings.length).toBeGreaterThan(0);
		expect(bookings.every((booking) => booking.status === 'awaiting_payment')).toBe(true);
		expect(requestsTo(sim, '/bookings').map((page) => page.query.status)).toEqual([
			'awaiting_payment',
		]);
	});

	it('passes event type, email, start range and updated-since on, dates in UTC', async () => {
		const sync = eventTypeId(sim, 'project-sync');
		const email = sim.control.bookings().find((booking) => booking.eventType.id === sync)!.booker
			.email;
		const bookings = await getMany({
			returnAll: true,
			filters: {
				eventType: { __rl: true, mode: 'id', value: sync },
				email,
				startFrom: '2020-01-01T09:00:00+09:00',
				startTo: '2030-12-31 23:59',
				updatedSince: '2020-01-01T00:00:00Z',
			},
		});

		const [request] = requestsTo(sim, '/bookings');
		expect(request.query).toMatchObject({
			eventTypeId: sync,
			email,
			startFrom: '2020-01-01T00:00:00Z',
			startTo: '2030-12-31T23:59:00Z',
			updatedSince: '2020-01-01T00:00:00Z',
		});
		expect(bookings.length).toBeGreaterThan(0);
		expect(bookings.every((booking) => booking.eventType.id === sync)).toBe(true);
		expect(bookings.every((booking) => booking.booker.email === email)).toBe(true);
	});
});

describe('output', () => {
	it('Simplify gives about ten flat fields, with the start also in local time', async () => {
		const [booking] = await getMany({ returnAll: false, limit: 1, simplify: true });

		expect(Object.keys(booking)).toEqual([
			'id',
			'status',
			'eventTypeName',
			'start',
			'end',
			'localStart',
			'localTimeZone',
			'bookerName',
			'bookerEmail',
			'joinUrl',
			'manageUrl',
		]);
		expect(booking.start).toMatch(/Z$/);
		expect(booking.localStart).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
		expect(Date.parse(booking.localStart)).toBe(Date.parse(booking.start));
		expect(booking.localTimeZone).toBe('UTC'); // the harness's workflow time zone
		expect(booking).not.toHaveProperty('booker');
	});

	it('Name Language resolves event type names from nameI18n', async () => {
		const intro = sim.control.eventType('intro-call');
		const booking = sim.control
			.bookings()
			.find((candidate) => candidate.eventType.id === intro.id)!;
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode('Get', {
					resource: 'booking',
					operation: 'get',
					bookingId: booking.id,
					options: { nameLanguage: 'ja' },
				}),
			],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.Get[0].json).toMatchObject({
			id: booking.id,
			eventType: { name: intro.nameI18n.ja },
		});
	});
});

describe('Get', () => {
	it('returns the full booking, with a read-only key', async () => {
		const booking = sim.control.bookings()[0];
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode('Get', { resource: 'booking', operation: 'get', bookingId: booking.id }),
			],
			credentials: credentialsFor(sim, 'readOnly'),
		});

		expect(result.error).toBeUndefined();
		expect(result.items.Get.map((item) => item.json)).toEqual([
			{
				...booking,
				localStart: booking.start.replace(/(\.000)?Z$/, '+00:00'),
				localEnd: booking.end.replace(/(\.000)?Z$/, '+00:00'),
				localTimeZone: 'UTC',
			},
		]);
	});
});
