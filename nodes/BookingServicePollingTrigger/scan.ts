// One poll's bounded, resumable reading of `GET /bookings?updatedSince=…&sort=-updatedAt`, oldest change first. The
// service lists newest first, so a large backlog is discovered to its last page keeping only chunk cursors, then
// reported chunk by chunk; `floor` and `edge` mark what was reported, so nothing is reported twice.
import { createHash } from 'crypto';

import type { Page } from '../shared/paging';
import type { BookingEvent, PollState } from './changes';
import { detectChanges, SETTLE_SLACK_MS, updatedSinceFor } from './changes';
import type { ListedBooking } from './known';
import { OVERLAP_MS, time } from './known';
import type { Scan } from './scanState';
import { latest, reachOf, withScan } from './scanState';

export type { Scan };

/** Pages per chunk, of PAGE_SIZE bookings (the service's largest page). */
export const CHUNK_PAGES = 10;
export const PAGE_SIZE = 100;
/** At most this many changes in one execution; the rest follow at the next polls, oldest first. */
export const MAX_CHANGES_PER_POLL = 5_000;
/** Requests one poll may send; discovery of a larger backlog continues at the next poll. */
export const MAX_PAGES_PER_POLL = 200;

export type PageReader<B> = (from: string | null, cursor: string | undefined) => Promise<Page<B>>;

/** Thrown by a page reader when the poll has no time left for another page: the scan stops and keeps its progress. */
export class PollBudgetSpent extends Error {
	constructor() {
		super("The poll's time budget is spent");
	}
}

export interface ScanLimits {
	chunkPages: number;
	maxChanges: number;
	maxPages: number;
	/** n8n's clock (tests set it). */
	now?: () => number;
}

export const DEFAULT_LIMITS: ScanLimits = {
	chunkPages: CHUNK_PAGES,
	maxChanges: MAX_CHANGES_PER_POLL,
	maxPages: MAX_PAGES_PER_POLL,
};

export interface ScanResult<B extends ListedBooking> {
	events: Array<BookingEvent<B>>;
	state: PollState;
	/** After progress (kept in `state`) the poll reports what it has; before any, it fails and keeps its old state. */
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
		: { from: updatedSinceFor(initial), top: null, marks: [''], discovering: true, floor: null, edge: [] };
	const events: Array<BookingEvent<B>> = [];
	let pages = 0;
	let progressed = false;
	/** Whether the request being sent continues from a stored cursor (only such a request can find it refused). */
	let fromStoredCursor = false;
	/** The page cursors passed in the chunk being read: where it can be split if the read is cut short. */
	let passed: string[] = [];
	/** When the chunk being read began to be read (n8n's clock, ms). */
	let chunkReadFrom = Number.NaN;

	const report = (items: B[]) => {
		// What is listed again: in this scan, the overlap it began with, until the scan has passed it; after it, the two
		// minutes before its newest change (the next scan starts there) — or only that change's millisecond when the scan
		// settles itself (topSettles).
		const fromMs = time(scan.from);
		const floorMs = time(scan.floor);
		const newestInChunk = newest(items);
		const topMs = time(reachOf(scan));
		if (scan.topSettles === undefined && time(newestInChunk) >= topMs - OVERLAP_MS) {
			scan.topSettles = chunkReadFrom - (scan.readAt ?? Number.POSITIVE_INFINITY) >= OVERLAP_MS + SETTLE_SLACK_MS;
		}
		const topCutMs = topMs - (scan.topSettles ? 0 : OVERLAP_MS);
		const rereads = (updatedMs: number) =>
			(updatedMs >= fromMs && updatedMs <= fromMs + OVERLAP_MS && !(updatedMs < floorMs)) || updatedMs >= topCutMs;
		// Unfinished: the chunks still to report list again everything from this chunk's newest change up. Finished: the
		// next scan starts an overlap before the top (withScan moves the position there), which `rereads` keeps.
		const remainsFrom = scan.marks.length > 1 ? time(newestInChunk) : Number.NaN;
		const keeps = (updatedMs: number) => rereads(updatedMs) || updatedMs >= remainsFrom;
		const detected = detectChanges(state, items, keeps, Number.isNaN(topMs) ? undefined : topMs);
		scan.forgotten = latest(scan.forgotten, detected.state.forgotten);
		state = { ...detected.state, forgotten: state.forgotten ?? null };
		events.push(...detected.events);
		if (newestInChunk !== undefined) {
			scan.floor = newestInChunk;
			scan.edge = items.slice(0, PAGE_SIZE).map(stateKey);
		}
		scan.marks.pop();
		progressed = true;
	};

	/** Splits the chunk being read at every page passed: each becomes a chunk of its own, the oldest last. */
	const split = () => {
		scan.marks.push(...passed);
		progressed ||= passed.length > 0;
		passed = [];
	};

	/** Reads from the last mark to the floor or the last page (`ended`), or `pageCount` pages. */
	const readChunk = async (pageCount: number): Promise<{ items: B[]; ended: boolean }> => {
		chunkReadFrom = (limits.now ?? Date.now)();
		const mark = scan.marks[scan.marks.length - 1];
		const items: B[] = [];
		let cursor: string | undefined = mark === '' ? undefined : mark;
		fromStoredCursor = cursor !== undefined;
		passed = [];
		for (let read = 0; read < pageCount; read++) {
			const askedAt = (limits.now ?? Date.now)();
			const page = await readPage(scan.from, cursor);
			fromStoredCursor = false;
			pages++;
			if (scan.top === null) {
				scan.top = newest(page.items) ?? null;
				scan.readAt = askedAt;
			}
			const floorMs = time(scan.floor);
			const topMs = time(scan.top);
			const edge = new Set(scan.edge);
			let belowFloor = false;
			for (const booking of page.items) {
				const updatedMs = time(booking.updatedAt);
				// Below the floor, or at the chunk reported last: the rest was reported.
				if (updatedMs < floorMs || edge.has(stateKey(booking))) {
					belowFloor = true;
					break;
				}
				if (!(updatedMs > topMs)) items.push(booking);
			}
			if (belowFloor || !page.nextCursor) return { items, ended: true };
			if (page.nextCursor === cursor || passed.includes(page.nextCursor) || scan.marks.includes(page.nextCursor)) {
				passed = [];
				throw new Error(
					`The Booking Service returned a page cursor it had returned before; stopped to avoid an endless loop`,
				);
			}
			if (items.length === 0 && passed.length === 0) {
				// Only changes newer than the scan's top so far (stamped after it began): nothing of this scan starts here.
				scan.marks[scan.marks.length - 1] = page.nextCursor;
				progressed = true;
			} else passed.push(page.nextCursor);
			cursor = page.nextCursor;
		}
		return { items, ended: false };
	};

	try {
		// Discovery: walk to the last page, remembering where each chunk starts; the last chunk is reported at once.
		while (scan.discovering && (pages === 0 || pages + limits.chunkPages <= limits.maxPages)) {
			const chunk = await readChunk(limits.chunkPages);
			if (chunk.ended) {
				scan.discovering = false;
				report(chunk.items);
			} else {
				if (passed.length > 0) scan.marks.push(passed[passed.length - 1]);
				progressed = true;
			}
		}
		// Reporting, oldest first. A chunk is read to the floor, at most twice its size: one that grew beyond (changes
		// stamped into it since) is split into pages instead.
		while (
			!scan.discovering &&
			scan.marks.length > 0 &&
			events.length + limits.chunkPages * PAGE_SIZE <= limits.maxChanges &&
			pages + 2 * limits.chunkPages <= limits.maxPages
		) {
			const chunk = await readChunk(2 * limits.chunkPages);
			if (chunk.ended && events.length + chunk.items.length <= limits.maxChanges) {
				report(chunk.items);
			} else {
				split();
				if (chunk.ended) break; // too many for this execution: the next poll reports it, in pieces
			}
		}
	} catch (error) {
		if (fromStoredCursor && isCursorRefused(error)) {
			// Rediscover from the first page; it stops at the floor, so nothing reported is reported again.
			scan.marks = [''];
			scan.discovering = true;
			progressed = true;
		} else if (scan.discovering || passed.length > 1) {
			// Keep every page passed before the failure: a budget of a few requests a poll moves the scan on.
			split();
		}
		// Else a chunk's first page, cut before the next one showed where it ends: a piece that small is no progress (the
		// next poll would read the same two pages), and a poll that can never read two says so instead of going round.
		passed = [];
		return { events, state: withScan(state, scan), failure: { error, afterProgress: progressed } };
	}
	return { events, state: withScan(state, scan) };
}

/** A booking's listed state in 11 characters (66 bits of SHA-256). */
function stateKey(booking: ListedBooking): string {
	return createHash('sha256')
		.update([booking.id, booking.updatedAt, booking.status, booking.start, booking.end].join('|'))
		.digest('base64url')
		.slice(0, 11);
}

function newest(items: ListedBooking[]): string | undefined {
	let found: string | undefined;
	for (const booking of items) {
		if (found === undefined || time(booking.updatedAt) > time(found)) found = booking.updatedAt;
	}
	return found;
}
