// Cursor paging over the service's lists (contract: `{ items, nextCursor }`), one loop for every caller: pages are
// requested only as consumed, never more items than still needed, and a repeated cursor stops with an error.
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { bookingServiceApiRequest } from './transport';
import type { BookingServiceContext, BookingServiceScope } from './transport';

export const MAX_PAGE_SIZE = 100;
/** 10,000 pages of 100 is a million items: past that something is wrong with the cursor, not the account. */
const MAX_PAGES = 10_000;

export interface Page<T> {
	items: T[];
	nextCursor: string | null;
}

export interface ListAllPagesOptions {
	path: string;
	qs?: IDataObject;
	/** Stop after this many items; omit to read every page (Return All). */
	limit?: number;
	itemIndex?: number;
	scope?: BookingServiceScope;
	timeoutMs?: number;
	/** See BookingServiceRequest.deadline. */
	deadline?: number;
	/** See BookingServiceRequest.maxAttempts. */
	maxAttempts?: number;
}

export async function listAllPages<T = IDataObject>(
	this: BookingServiceContext,
	options: ListAllPagesOptions,
): Promise<T[]> {
	const collected: T[] = [];
	for await (const page of iterateListPages.call(this, options)) {
		for (const item of page) collected.push(item as T);
	}
	return collected;
}

export async function* iterateListItems<T = IDataObject>(
	this: BookingServiceContext,
	options: ListAllPagesOptions,
): AsyncGenerator<T> {
	for await (const page of iterateListPages.call(this, options)) yield* page as T[];
}

/** Whole pages, so a caller that keeps everything pays one await per page; a page longer than asked for is cut. */
export async function* iterateListPages<T = IDataObject>(
	this: BookingServiceContext,
	options: ListAllPagesOptions,
): AsyncGenerator<T[]> {
	const { limit, itemIndex } = options;
	const seenCursors = new Set<string>();
	let yielded = 0;
	let cursor: string | undefined;

	for (let page = 0; page < MAX_PAGES; page++) {
		const remaining = limit === undefined ? MAX_PAGE_SIZE : limit - yielded;
		if (remaining <= 0) return;
		const response = (await fetchListPage.call(this, {
			...options,
			limit: pageSizeFor(remaining),
			cursor,
		})) as Page<T>;
		if (limit !== undefined && response.items.length > remaining) {
			// More than asked for: the limit is reached inside this page, so its cursor is not needed.
			yield response.items.slice(0, remaining);
			return;
		}
		yielded += response.items.length;
		yield response.items;
		const next = response.nextCursor;
		if (next === null || next === undefined || next === '') return;
		if (seenCursors.has(next)) {
			throw new NodeApiError(
				this.getNode(),
				{ message: 'repeated cursor' },
				{
					message: `The Booking Service returned the same page cursor twice for GET ${options.path}; stopped to avoid an endless loop`,
					description: `${yielded} items were read before the repeat. Try again later; if it persists, report it to the service.`,
					itemIndex,
				},
			);
		}
		seenCursors.add(next);
		cursor = next;
	}
	throw new NodeApiError(
		this.getNode(),
		{ message: 'too many pages' },
		{
			message: `Stopped after ${MAX_PAGES} pages of GET ${options.path}`,
			description: 'Narrow the filters or set a Limit.',
			itemIndex,
		},
	);
}

export interface ListPageRequest extends Omit<ListAllPagesOptions, 'limit'> {
	/** Page size, 1..100. */
	limit: number;
	/** Where to continue: a `nextCursor` the same query returned; undefined for the first page. */
	cursor?: string;
}

export async function fetchListPage<T = IDataObject>(
	this: BookingServiceContext,
	request: ListPageRequest,
): Promise<Page<T>> {
	const { itemIndex, cursor } = request;
	const response: unknown = await bookingServiceApiRequest.call(
		this,
		{
			method: 'GET',
			path: request.path,
			qs: { ...request.qs, limit: request.limit, ...(cursor === undefined ? {} : { cursor }) },
			scope: request.scope,
			timeoutMs: request.timeoutMs,
			deadline: request.deadline,
			maxAttempts: request.maxAttempts,
		},
		itemIndex,
	);
	if (!isPage<T>(response)) {
		throw new NodeApiError(
			this.getNode(),
			{ message: 'unexpected list response' },
			{
				message: `The Booking Service answered GET ${request.path} with something other than a page of results`,
				description: "Check the Base URL in the credential: it must be the service's base URL including /v1.",
				itemIndex,
			},
		);
	}
	return response;
}

export function pageSizeFor(remaining: number): number {
	return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(remaining)));
}

function isPage<T>(value: unknown): value is Page<T> {
	return (
		typeof value === 'object' &&
		value !== null &&
		Array.isArray((value as Page<T>).items) &&
		(typeof (value as Page<T>).nextCursor === 'string' ||
			(value as Page<T>).nextCursor === null ||
			(value as Page<T>).nextCursor === undefined)
	);
}
