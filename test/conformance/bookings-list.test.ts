// Contract, GET /bookings: default exclusion of in-flight states, every filter and sort, page size
// limits, and cursor paging through a few hundred bookings with nothing lost or repeated, even
// while bookings change.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Booking } from '../simulator/index.ts';
import { call, listAll } from './support/client.ts';
import { bookingBody, eventTypeId, freeSlots, useSimulator } from './support/fixtures.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';

const GENERATED = 300;
// Paging one by one through hundreds of bookings takes more requests than the default budget.
const sim = useSimulator({ generatedBookings: GENERATED, rateLimit: false });
let schemas: SchemaChecker;
beforeAll(async () => {
	schemas = await loadSchemas(sim());
});

const ALL_STATUSES = 'held,awaiting_payment,confirmed,cancelled,completed,no_show';

function ids(bookings: Array<{ id: string }>): string[] {
	return bookings.map((booking) => booking.id);
}

function expectNoRepeats(items: Array<{ id: string }>) {
	expect(new Set(ids(items)).size).toBe(items.length);
}

describe('default listing', () => {
	it('leaves out held and awaiting_payment bookings unless status asks for them', async () => {
		const { items } = await listAll(sim(), '/bookings?limit=100');
		const expected = sim()
			.control.bookings()
			.filter((booking) => !['held', 'awaiting_payment'].includes(booking.status));
		expect(new Set(ids(items))).toEqual(new Set(ids(expected)));
		expect(
			items.some((booking) => booking.status === 'held' || booking.status === 'awaiting_payment'),
		).toBe(false);
		for (const booking of items.slice(0, 20)) schemas.expect('Booking', booking);
	});

	it('pages 50 at a time by default', async () => {
		const response = await call(sim(), 'GET', '/bookings');
		schemas.expect('BookingPage', response.body);
		expect(response.body.items).toHaveLength(50);
		expect(typeof response.body.nextCursor).toBe('string');
	});
});

describe('status filter (comma-separated, the simulator’s syntax)', () => {
	it.each(['held', 'awaiting_payment', 'confirmed', 'cancelled', 'completed', 'no_show'])(
		'status=%s',
		async (status) => {
			const { items } = await listAll(sim(), `/bookings?limit=100&status=${status}`);
			const expected = sim()
				.control.bookings()
				.filter((booking) => booking.status === status);
			expect(expected.length).toBeGreaterThan(0);
			expect(new Set(ids(items))).toEqual(new Set(ids(expected)));
		},
	);

	it('takes several statuses separated by commas', async () => {
		const { items } = await listAll(sim(), '/bookings?limit=100&status=held,awaiting_payment');
		expect(new Set(items.map((booking) => booking.status))).toEqual(
			new Set(['held', 'awaiting_payment']),
		);
		const everything = await listAll(sim(), `/bookings?limit=100&status=${ALL_STATUSES}`);
		expect(everything.items).toHaveLength(sim().control.bookings().length);
	});

	it.each([
		['an unknown status', 'status=pending'],
		['an empty value', 'status='],
		['a trailing comma', 'status=held,'],
		['the parameter repeated', 'status=held&status=confirmed'],
	])('refuses %s', async (_name, query) => {
		const response = await call(sim(), 'GET', `/bookings?${query}`);
		expect(response.status).toBe(400);
		expect(response.body.error.details).toEqual([{ field: 'status', message: expect.any(String) }]);
	});
});

describe('filters', () => {
	it('eventTypeId', async () => {
		const id = eventTypeId(sim(), 'studio-session');
		const { items } = await listAll(
			sim(),
			`/bookings?limit=100&status=${ALL_STATUSES}&eventTypeId=${id}`,
		);
		expect(items.length).toBeGreaterThan(0);
		expect(new Set(ids(items))).toEqual(
			new Set(
				ids(
					sim()
						.control.bookings()
						.filter((booking) => booking.eventType.id === id),
				),
			),
		);
		const bad = await call(sim(), 'GET', '/bookings?eventTypeId=studio-session');
		expect(bad.status).toBe(400);
		expect(bad.body.error.details[0].field).toBe('eventTypeId');
	});

	it('email, matched without regard to case', async () => {
		const { items } = await listAll(
			sim(),
			`/bookings?status=${ALL_STATUSES}&email=Taro.Yamada@EXAMPLE.jp`,
		);
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((booking) => booking.booker.email === 'taro.yamada@example.jp')).toBe(true);
	});

	it('email must be an email address of at most 254 characters', async () => {
		const local = 'a'.repeat(64);
		const email254 = `${local}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
		expect((await call(sim(), 'GET', `/bookings?email=${email254}`)).status).toBe(200);
		for (const email of [`a${email254}`, 'not-an-email']) {
			const response = await call(sim(), 'GET', `/bookings?email=${email}`);
			expect(response.status).toBe(400);
			expect(response.body.error.details[0].field).toBe('email');
		}
	});

	it('startFrom and startTo, both inclusive', async () => {
		const all = sim()
			.control.bookings()
			.sort((a, b) => a.start.localeCompare(b.start));
		const from = all[10].start;
		const to = all[20].start;
		const { items } = await listAll(
			sim(),
			`/bookings?limit=100&status=${ALL_STATUSES}&startFrom=${from}&startTo=${to}`,
		);
		const expected = all.filter((booking) => booking.start >= from && booking.start <= to);
		expect(new Set(ids(items))).toEqual(new Set(ids(expected)));
		expect(ids(items)).toContain(all[10].id);
		expect(ids(items)).toContain(all[20].id);
	});

	it('refuses startTo before startFrom, and times that do not end in Z', async () => {
		const reversed = await call(
			sim(),
			'GET',
			'/bookings?startFrom=2030-01-09T00:00:00Z&startTo=2030-01-08T00:00:00Z',
		);
		expect(reversed.status).toBe(400);
		expect(reversed.body.error.details[0].field).toBe('startTo');
		for (const name of ['startFrom', 'startTo', 'updatedSince']) {
			const response = await call(sim(), 'GET', `/bookings?${name}=2030-01-08T00:00:00%2B09:00`);
			expect(response.status).toBe(400);
			expect(response.body.error.details[0].field).toBe(name);
		}
	});

	it('updatedSince finds what changed since a moment', async () => {
		await sim().control.advanceClock(60);
		const since = sim().control.now().now;
		const target = sim()
			.control.bookings()
			.find(
				(booking) =>
					booking.status === 'confirmed' && booking.eventType.slug === 'phone-consultation',
			)!;
		sim().control.cancel(target.id, { by: 'booker', reason: 'ill' });
		const { items } = await listAll(
			sim(),
			`/bookings?status=${ALL_STATUSES}&updatedSince=${since}`,
		);
		expect(ids(items)).toEqual([target.id]);
	});
});

describe('sort', () => {
	async function order(sort: string): Promise<Booking[]> {
		const { items } = await listAll(
			sim(),
			`/bookings?limit=100&status=${ALL_STATUSES}&sort=${sort}`,
		);
		expect(items).toHaveLength(sim().control.bookings().length);
		return items;
	}

	function isOrdered(values: string[], direction: 1 | -1): boolean {
		return values.every(
			(value, index) => index === 0 || direction * value.localeCompare(values[index - 1]) >= 0,
		);
	}

	it('-createdAt by default (newest first)', async () => {
		const sorted = await order('-createdAt');
		expect(
			isOrdered(
				sorted.map((booking) => booking.createdAt),
				-1,
			),
		).toBe(true);
		const byDefault = await listAll(sim(), `/bookings?limit=100&status=${ALL_STATUSES}`);
		expect(ids(byDefault.items)).toEqual(ids(sorted));
	});

	it('start, -start and -updatedAt', async () => {
		expect(
			isOrdered(
				(await order('start')).map((booking) => booking.start),
				1,
			),
		).toBe(true);
		expect(
			isOrdered(
				(await order('-start')).map((booking) => booking.start),
				-1,
			),
		).toBe(true);
		expect(
			isOrdered(
				(await order('-updatedAt')).map((booking) => booking.updatedAt),
				-1,
			),
		).toBe(true);
	});

	it.each(['createdAt', '+start', 'start,-createdAt', ''])('refuses sort=%s', async (sort) => {
		const response = await call(sim(), 'GET', `/bookings?sort=${encodeURIComponent(sort)}`);
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].field).toBe('sort');
	});
});

describe('pages', () => {
	it.each([
		['1', 200, 1],
		['100', 200, 100],
		['0', 400, 0],
		['101', 400, 0],
	])('limit=%s → %i', async (limit, status, count) => {
		const response = await call(sim(), 'GET', `/bookings?limit=${limit}`);
		expect(response.status).toBe(status);
		if (status === 200) expect(response.body.items).toHaveLength(count);
		else expect(response.body.error.details[0].field).toBe('limit');
	});

	it.each([100, 7, 1])('walks every booking exactly once with limit=%i', async (limit) => {
		const all = sim().control.bookings();
		expect(all.length).toBeGreaterThan(GENERATED);
		const { items, pages } = await listAll(
			sim(),
			`/bookings?limit=${limit}&status=${ALL_STATUSES}`,
			1000,
		);
		expectNoRepeats(items);
		expect(new Set(ids(items))).toEqual(new Set(ids(all)));
		expect(pages).toBe(Math.ceil(all.length / limit));
	});

	it('loses and repeats nothing while bookings are created and cancelled between pages', async () => {
		const before = sim().control.bookings();
		const seen: Booking[] = [];
		let cursor: string | null = null;
		const slots = await freeSlots(sim(), 'intro-call', 10);
		for (let page = 0; page < 100; page += 1) {
			const query: string = cursor === null ? '' : `&cursor=${cursor}`;
			const response = await call(
				sim(),
				'GET',
				`/bookings?limit=40&status=${ALL_STATUSES}&sort=start${query}`,
			);
			seen.push(...response.body.items);
			// Between pages: a new booking (later than most) and a cancellation (moves updatedAt, not
			// start).
			const start = slots[page];
			if (start !== undefined) {
				const created = await call(sim(), 'POST', '/bookings', {
					json: bookingBody(eventTypeId(sim(), 'intro-call'), start, {
						booker: {
							name: `Between ${page}`,
							email: `between${page}@example.com`,
							timezone: 'UTC',
						},
					}),
				});
				expect(created.status).toBe(201);
			}
			const live = sim()
				.control.bookings()
				.find(
					(booking) => booking.status === 'confirmed' && booking.booker.name.startsWith('Guest'),
				);
			if (live !== undefined) sim().control.cancel(live.id, { by: 'host' });
			cursor = response.body.nextCursor;
			if (cursor === null) break;
		}
		expect(cursor).toBeNull();
		expectNoRepeats(seen);
		const seenIds = new Set(ids(seen));
		for (const booking of before) expect(seenIds.has(booking.id), booking.id).toBe(true);
	});

	it('gives no cursor when the items end exactly at the page boundary, nor an empty last page', async () => {
		const cancelled = sim()
			.control.bookings()
			.filter((booking) => booking.status === 'cancelled').length;
		expect(cancelled).toBeGreaterThan(1);
		const exact = await call(sim(), 'GET', `/bookings?status=cancelled&limit=${cancelled}`);
		expect(exact.body.items).toHaveLength(cancelled);
		expect(exact.body.nextCursor).toBeNull();
		const short = await call(sim(), 'GET', `/bookings?status=cancelled&limit=${cancelled - 1}`);
		expect(short.body.nextCursor).not.toBeNull();
		const last = await call(
			sim(),
			'GET',
			`/bookings?status=cancelled&limit=${cancelled - 1}&cursor=${short.body.nextCursor}`,
		);
		expect(last.body.items).toHaveLength(1);
		expect(last.body.nextCursor).toBeNull();
	});

	it('refuses a cursor reused with other filters or sort', async () => {
		const first = await call(sim(), 'GET', '/bookings?limit=5');
		for (const query of ['sort=start', 'status=held', `email=taro.yamada@example.jp`]) {
			const response = await call(
				sim(),
				'GET',
				`/bookings?limit=5&${query}&cursor=${first.body.nextCursor}`,
			);
			expect(response.status, query).toBe(400);
			expect(response.body.error.details[0].field).toBe('cursor');
		}
		const sameQueryOtherLimit = await call(
			sim(),
			'GET',
			`/bookings?limit=7&cursor=${first.body.nextCursor}`,
		);
		expect(sameQueryOtherLimit.status).toBe(200);
	});
});
