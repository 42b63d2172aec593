import { describe, expect, it } from 'vitest';

import {
	iterateListItems,
	iterateListPages,
	listAllPages,
	pageSizeFor,
} from '../../nodes/shared/paging.ts';
import { fakeContext, pagedResponder } from './fake-context.ts';

describe('pageSizeFor', () => {
	it.each([
		[0, 1],
		[-3, 1],
		[1, 1],
		[37.9, 37],
		[100, 100],
		[101, 100],
		[1e9, 100],
	])('%s remaining → page size %s', (remaining, size) => {
		expect(pageSizeFor(remaining)).toBe(size);
	});
});

describe('listAllPages', () => {
	it('Return All follows nextCursor to the end, each item once, pages of 100', async () => {
		const { context, requests } = fakeContext(pagedResponder(1234));
		const items = (await listAllPages.call(context, { path: '/bookings' })) as Array<{
			id: string;
		}>;

		expect(items).toHaveLength(1234);
		expect(new Set(items.map((item) => item.id)).size).toBe(1234);
		expect(requests).toHaveLength(13);
		expect(requests.every((request) => request.qs?.limit === 100)).toBe(true);
		expect(requests[0].qs).not.toHaveProperty('cursor');
		expect(requests[1].qs?.cursor).toBe('c100');
	});

	it('keeps filters on every page', async () => {
		const { context, requests } = fakeContext(pagedResponder(150));
		await listAllPages.call(context, {
			path: '/bookings',
			qs: { status: 'confirmed', sort: 'start' },
		});

		expect(requests.map((request) => request.qs)).toEqual([
			{ status: 'confirmed', sort: 'start', limit: 100 },
			{ status: 'confirmed', sort: 'start', limit: 100, cursor: 'c100' },
		]);
	});

	it('Limit never asks for more than still needed', async () => {
		const { context, requests } = fakeContext(pagedResponder(1000));
		const items = await listAllPages.call(context, { path: '/bookings', limit: 250 });

		expect(items).toHaveLength(250);
		expect(requests.map((request) => request.qs?.limit)).toEqual([100, 100, 50]);
	});

	it('when the service sends smaller pages than asked, asks only for the rest', async () => {
		const { context, requests } = fakeContext(pagedResponder(1000, 10));
		const items = await listAllPages.call(context, { path: '/bookings', limit: 25 });

		expect(items).toHaveLength(25);
		expect(requests.map((request) => request.qs?.limit)).toEqual([25, 15, 5]);
	});

	it('when the service sends more than asked, returns only the limit', async () => {
		const { context } = fakeContext(() => ({
			body: {
				items: Array.from({ length: 30 }, (_, index) => ({ id: index })),
				nextCursor: 'more',
			},
		}));

		expect(await listAllPages.call(context, { path: '/bookings', limit: 20 })).toHaveLength(20);
	});

	it('an empty first page or an empty cursor ends the listing', async () => {
		const empty = fakeContext(() => ({ body: { items: [], nextCursor: null } }));
		const emptyCursor = fakeContext(() => ({ body: { items: [{ id: 1 }], nextCursor: '' } }));

		expect(await listAllPages.call(empty.context, { path: '/event-types' })).toEqual([]);
		expect(await listAllPages.call(emptyCursor.context, { path: '/event-types' })).toEqual([
			{ id: 1 },
		]);
		expect(emptyCursor.requests).toHaveLength(1);
	});

	it('stops with a clear error when the service repeats a cursor', async () => {
		const { context, requests } = fakeContext((_, index) => ({
			body: { items: [{ id: index }], nextCursor: index === 0 ? 'a' : 'b' },
		}));

		await expect(listAllPages.call(context, { path: '/bookings' })).rejects.toMatchObject({
			name: 'NodeApiError',
			message: expect.stringMatching(/same page cursor twice.*endless loop/),
		});
		expect(requests.map((request) => request.qs?.cursor)).toEqual([undefined, 'a', 'b']);
	});

	it('a cursor that cycles through two values is caught too', async () => {
		const { context, requests } = fakeContext((_, index) => ({
			body: { items: [{ id: index }], nextCursor: index % 2 === 0 ? 'x' : 'y' },
		}));

		await expect(listAllPages.call(context, { path: '/bookings' })).rejects.toThrow(
			/same page cursor twice/,
		);
		expect(requests).toHaveLength(3);
	});

	it('something that is not a page is an error, not an empty list', async () => {
		const { context } = fakeContext(() => ({ body: '<html>Welcome</html>' }));

		await expect(listAllPages.call(context, { path: '/bookings' })).rejects.toThrow(
			/other than a page of results/,
		);
	});
});

describe('iterateListItems', () => {
	it('requests the next page only when it is consumed', async () => {
		const { context, requests } = fakeContext(pagedResponder(500));
		const iterator = iterateListItems.call(context, { path: '/bookings' });
		for (let index = 0; index < 100; index++) await iterator.next();

		expect(requests).toHaveLength(1);
		await iterator.next();
		expect(requests).toHaveLength(2);
		await iterator.return(undefined);
	});
});

describe('iterateListPages', () => {
	it('yields each page whole, requesting the next only when it is consumed', async () => {
		const { context, requests } = fakeContext(pagedResponder(250));
		const pages = iterateListPages.call(context, { path: '/bookings' });

		const first = await pages.next();
		expect(first.value).toHaveLength(100);
		expect(requests).toHaveLength(1);
		const second = await pages.next();
		expect(second.value?.[0]).toEqual({ id: 'item-100' });
		expect(requests).toHaveLength(2);
		expect((await pages.next()).value).toHaveLength(50);
		expect((await pages.next()).done).toBe(true);
		expect(requests).toHaveLength(3);
	});

	it('cuts a page longer than asked for to the Limit and does not follow its cursor', async () => {
		const { context, requests } = fakeContext(() => ({
			body: {
				items: Array.from({ length: 30 }, (_, index) => ({ id: index })),
				nextCursor: 'more',
			},
		}));
		const pages = [];
		for await (const page of iterateListPages.call(context, { path: '/bookings', limit: 20 })) {
			pages.push(page);
		}

		expect(pages.map((page) => page.length)).toEqual([20]);
		expect(requests).toHaveLength(1);
	});
});
