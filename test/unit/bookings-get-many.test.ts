import { describe, expect, it } from 'vitest';

import { execute } from '../../nodes/BookingService/actions/booking/getMany.operation.ts';
import { fakeContext } from './fake-context.ts';
import type { Responder } from './fake-context.ts';

type Input = Parameters<typeof execute>[1];

const input = (overrides: Partial<Input> = {}): Input => ({
	filters: {},
	statuses: [],
	sort: '-createdAt',
	limit: undefined,
	output: { nameLanguage: 'service', simplify: false, timeZone: 'UTC' },
	timeoutMs: undefined,
	...overrides,
});

/** Bookings as the listing returns them; only what Get Many itself reads is filled in. */
const booking = (id: string, createdAt = '2026-03-01T00:00:00Z') => ({
	id,
	createdAt,
	answers: [],
});

/** Answers the pages in order, whatever was asked. */
function pages(...answers: Array<{ items: unknown[]; nextCursor: string | null }>): Responder {
	return (_request, index) => ({ statusCode: 200, body: answers[index] });
}

describe('Booking → Get Many, none or one status: a single listing', () => {
	it('reads every page, in order, with the status when one is chosen', async () => {
		const { context, requests } = fakeContext(
			pages(
				{ items: [booking('b1'), booking('b2')], nextCursor: 'c2' },
				{ items: [booking('b3')], nextCursor: null },
			),
		);
		const result = await execute.call(
			context,
			0,
			input({ statuses: ['confirmed'], sort: 'start' }),
		);

		expect(result.map((item) => item.id)).toEqual(['b1', 'b2', 'b3']);
		expect(requests.map((request) => request.qs)).toEqual([
			{ sort: 'start', status: 'confirmed', limit: 100 },
			{ sort: 'start', status: 'confirmed', limit: 100, cursor: 'c2' },
		]);
	});

	it('sends no status when none is chosen', async () => {
		const { context, requests } = fakeContext(pages({ items: [booking('b1')], nextCursor: null }));
		await execute.call(context, 0, input());

		expect(requests.map((request) => request.qs)).toEqual([{ sort: '-createdAt', limit: 100 }]);
	});

	it('returns a booking that shows up on two pages once, where it was first seen', async () => {
		// A booking created while the pages are read can push the last one of a page onto the next.
		const { context } = fakeContext(
			pages(
				{ items: [booking('b1'), booking('b2', '2026-03-02T00:00:00Z')], nextCursor: 'c2' },
				{ items: [booking('b2', '2026-03-03T00:00:00Z'), booking('b3')], nextCursor: null },
			),
		);
		const result = await execute.call(context, 0, input());

		expect(result.map((item) => [item.id, item.createdAt])).toEqual([
			['b1', '2026-03-01T00:00:00Z'],
			['b2', '2026-03-02T00:00:00Z'],
			['b3', '2026-03-01T00:00:00Z'],
		]);
	});

	it('never asks for more than the Limit, counting a repeated booking against it as before', async () => {
		const { context, requests } = fakeContext(
			pages(
				{ items: [booking('b1'), booking('b2')], nextCursor: 'c2' },
				{ items: [booking('b2')], nextCursor: 'c3' },
			),
		);
		const result = await execute.call(context, 0, input({ limit: 3 }));

		expect(requests.map((request) => request.qs?.limit)).toEqual([3, 1]);
		expect(result.map((item) => item.id)).toEqual(['b1', 'b2']);
	});
});
