/**
 * Cursor pages (contract: `{ items, nextCursor }`, `limit` 1 to 100, default 50). Keyset paging:
 * the cursor names the sort key of the last item served, so bookings created or cancelled between
 * two page requests never make an item disappear or appear twice. The cursor also carries a
 * fingerprint of the query, because a cursor only means something for the filters and sort it was
 * made with.
 */
import { createHash } from 'node:crypto';
import { CURSOR_VERSION } from './policy.ts';
import type { Problems } from './validation.ts';

/** The position of an item in a listing: its sort value, then a unique tie-breaker. */
export type SortKey = readonly [value: number, tie: number];

interface CursorPayload {
	v: number;
	q: string;
	k: SortKey;
}

export function queryFingerprint(query: unknown): string {
	return createHash('sha256').update(JSON.stringify(query)).digest('hex').slice(0, 16);
}

/**
 * The sort key a cursor points after; records a problem on `cursor` when it is not one of ours for
 * this query.
 */
export function readCursor(
	problems: Problems,
	cursor: string | undefined,
	fingerprint: string,
): SortKey | undefined {
	if (cursor === undefined) return undefined;
	const payload = decode(cursor);
	if (payload === undefined) {
		problems.add('cursor', 'is not a cursor this API returned');
		return undefined;
	}
	if (payload.q !== fingerprint) {
		problems.add(
			'cursor',
			'belongs to a different query; repeat the filters and sort it was made with',
		);
		return undefined;
	}
	return payload.k;
}

function decode(cursor: string): CursorPayload | undefined {
	let payload: Partial<CursorPayload> | null;
	try {
		payload = JSON.parse(
			Buffer.from(cursor, 'base64url').toString('utf8'),
		) as Partial<CursorPayload> | null;
	} catch {
		return undefined;
	}
	const valid =
		typeof payload === 'object' &&
		payload !== null &&
		payload.v === CURSOR_VERSION &&
		typeof payload.q === 'string' &&
		Array.isArray(payload.k) &&
		payload.k.length === 2 &&
		payload.k.every((part) => typeof part === 'number' && Number.isFinite(part));
	return valid ? (payload as CursorPayload) : undefined;
}

/** One page of `items` in the order of `keyOf` (descending when asked), after the cursor's key. */
export function paginate<T>(
	items: T[],
	options: {
		keyOf: (item: T) => SortKey;
		descending: boolean;
		after: SortKey | undefined;
		limit: number;
		fingerprint: string;
	},
): { items: T[]; nextCursor: string | null } {
	const direction = options.descending ? -1 : 1;
	const compare = (a: SortKey, b: SortKey) => direction * (a[0] - b[0] || a[1] - b[1]);
	const sorted = [...items].sort((a, b) => compare(options.keyOf(a), options.keyOf(b)));
	const after = options.after;
	const remaining =
		after === undefined ? sorted : sorted.filter((item) => compare(options.keyOf(item), after) > 0);
	const page = remaining.slice(0, options.limit);
	const last = page.at(-1);
	const nextCursor =
		remaining.length > options.limit && last !== undefined
			? Buffer.from(
					JSON.stringify({ v: CURSOR_VERSION, q: options.fingerprint, k: options.keyOf(last) }),
				).toString('base64url')
			: null;
	return { items: page, nextCursor };
}
