/**
 * One poll's reading of `GET /bookings?updatedSince=…&sort=-updatedAt`, bounded, resumable, oldest change first.
 *
 * The service lists newest first, so the oldest changes are on the last page. A backlog that fits CHUNK_PAGES pages
 * is read and reported in one go. A larger one is scanned in chunks of CHUNK_PAGES pages: the scan first walks to the
 * last page remembering only the page cursor where each chunk starts (discovery), then reports the chunks from the
 * oldest, re-reading each from its cursor, at most MAX_CHANGES_PER_POLL changes per poll. Everything a poll finished
 * (cursors found, chunks reported) stays in the scan, so a poll stopped part-way — a 429 with a long Retry-After, the
 * page budget, a timeout — is continued by the next one instead of starting over, and memory stays flat whatever the
 * backlog: one chunk and one poll's events.
 *
 * Chunks are told apart by time, not by cursor: `floor` is the newest change among the chunks already reported, and
 * re-reading a chunk stops below it; `top` is the newest change when the scan began, and later ones wait for the next
 * scan. A booking that changes during the scan leaves its place in the listing for the top, so it is reported once,
 * by the next scan. A stored cursor the service no longer accepts sends the scan back to discovery, which stops at
 * `floor`: nothing is reported twice.
 */
import type { Page } from '../shared/paging';
import type { BookingEvent, PollState } from './changes';
import { detectChanges, updatedSinceFor } from './changes';
import type { ListedBooking } from './known';
import { decodeState, isSameState, time } from './known';

/** Pages per chunk (100 bookings a page). */
export const CHUNK_PAGES = 10;
/** At most this many changes in one execution; the rest follow at the next polls, oldest first. */
export const MAX_CHANGES_PER_POLL = 5_000;
/** Requests one poll may send; discovery of a larger backlog continues at the next poll. */
export const MAX_PAGES_PER_POLL = 200;

export interface Scan {
	/** The updatedSince of every page of this scan (null: everything). */
	from: string | null;
	/** The newest updatedAt on the scan's first page; null until it was read. */
	top: string | null;
	/** The page cursor where each chunk not yet reported starts, oldest chunk last; '' is the first page. */
	marks: string[];
	/** Until the last page was reached. */
	discovering: boolean;
	/** The newest updatedAt among the chunks already reported; null before the first. */
	floor: string | null;
}

export type PageReader<B> = (from: string | null, cursor: string | undefined) => Promise<Page<B>>;

export interface ScanLimits {
	chunkPages: number;
	maxChanges: number;
	maxPages: number;
}

export const DEFAULT_LIMITS: ScanLimits = {
	chunkPages: CHUNK_PAGES,
	maxChanges: MAX_CHANGES_PER_POLL,
	maxPages: MAX_PAGES_PER_POLL,
};

export interface ScanResult<B extends ListedBooking> {
	events: Array<BookingEvent<B>>;
	state: PollState;
	/**
	 * The failure that ended this poll. After progress (kept in `state`, continued at the next poll) the poll reports
	 * what it has; before any, the caller fails the poll and keeps its old state.
	 */
	failure?: { error: unknown; afterProgress: boolean };
}

/** A stored cursor refused by the service (expired, or from another query). */
export type CursorRefused = (error: unknown) => boolean;

export async function scanChanges<B extends ListedBooking>(
	initial: PollState,
	readPage: PageReader<B>,
	isCursorRefused: CursorRefused,
	limits: ScanLimits = DEFAULT_LIMITS,
): Promise<ScanResult<B>> {
	let state: PollState = { ...initial };
	const scan: Scan = initial.scan
		? { ...initial.scan, marks: [...initial.scan.marks] }
		: { from: updatedSinceFor(initial), top: null, marks: [''], discovering: true, floor: null };
	const events: Array<BookingEvent<B>> = [];
	let pages = 0;
	let progressed = false;
	/** Whether the request being sent continues from a stored cursor (only such a request can find it refused). */
	let fromStoredCursor = false;

	const isKnownUnchanged = (booking: B) => {
		const known = decodeState(state.known[booking.id]);
		return known !== undefined && isSameState(known, booking);
	};

	/** Reports one chunk's changes, oldest first, and moves the floor up to the newest of them. */
	const report = (items: B[]) => {
		const detected = detectChanges(state, items);
		state = detected.state;
		events.push(...detected.events);
		const newestInChunk = newest(items);
		if (newestInChunk !== undefined) scan.floor = newestInChunk;
		scan.marks.pop();
		progressed = true;
	};

	/**
	 * Reads pages from a chunk's mark until `pageCount` pages, the floor, or the last page; keeps the bookings
	 * between floor and top. `next` is where the following chunk starts, null when the listing ended here.
	 */
	const readChunk = async (mark: string, pageCount: number): Promise<{ items: B[]; next: string | null }> => {
		const items: B[] = [];
		let cursor: string | undefined = mark === '' ? undefined : mark;
		fromStoredCursor = cursor !== undefined;
		for (let read = 0; read < pageCount; read++) {
			const page = await readPage(scan.from, cursor);
			fromStoredCursor = false;
			pages++;
			if (scan.top === null) scan.top = newest(page.items) ?? null;
			const floorMs = time(scan.floor);
			const topMs = time(scan.top);
			let belowFloor = false;
			// Only once a chunk was reported: before that, a page of known bookings (the overlap) may still be followed
			// by a change committed late.
			let onlyReported = page.items.length > 0 && !Number.isNaN(floorMs);
			for (const booking of page.items) {
				const updatedMs = time(booking.updatedAt);
				if (updatedMs < floorMs) belowFloor = true;
				else if (!(updatedMs > topMs)) items.push(booking);
				onlyReported &&= !(updatedMs > floorMs) && isKnownUnchanged(booking);
			}
			// Past the floor, or a page of changes stamped at the floor that were all reported: the older chunks begin.
			if (belowFloor || onlyReported || !page.nextCursor) return { items, next: null };
			cursor = page.nextCursor;
		}
		return { items, next: cursor ?? null };
	};

	try {
		// Discovery: walk to the last page, remembering where each chunk starts; the last chunk is reported at once.
		while (scan.discovering && (pages === 0 || pages + limits.chunkPages <= limits.maxPages)) {
			const chunk = await readChunk(scan.marks[scan.marks.length - 1], limits.chunkPages);
			if (chunk.next === null) {
				scan.discovering = false;
				report(chunk.items);
			} else {
				scan.marks.push(chunk.next);
				progressed = true;
			}
		}
		// Reporting: the chunks left, oldest first, while this poll's bounds allow a whole chunk more.
		while (
			!scan.discovering &&
			scan.marks.length > 0 &&
			events.length + limits.chunkPages * 100 <= limits.maxChanges &&
			pages + limits.chunkPages <= limits.maxPages
		) {
			// Read to the floor: bookings that changed since discovery have left the chunk, so it may reach further.
			const chunk = await readChunk(scan.marks[scan.marks.length - 1], Number.POSITIVE_INFINITY);
			report(chunk.items);
		}
	} catch (error) {
		if (fromStoredCursor && isCursorRefused(error)) {
			// Rediscover from the first page; it stops at the floor, so nothing reported is reported again.
			scan.marks = [''];
			scan.discovering = true;
			progressed = true;
		}
		return { events, state: withScan(state, scan), failure: { error, afterProgress: progressed } };
	}
	return { events, state: withScan(state, scan) };
}

function withScan(state: PollState, scan: Scan): PollState {
	const next = { ...state };
	delete next.scan;
	if (scan.discovering || scan.marks.length > 0) next.scan = scan;
	return next;
}

function newest(items: ListedBooking[]): string | undefined {
	let found: string | undefined;
	for (const booking of items) {
		if (found === undefined || time(booking.updatedAt) > time(found)) found = booking.updatedAt;
	}
	return found;
}
