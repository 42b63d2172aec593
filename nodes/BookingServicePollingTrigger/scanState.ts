// A scan's progress as stored between polls, and the state a finished scan leaves: the position it reached (never past
// n8n's clock when it asked) and what settles.
import type { PollState } from './changes';
import { afterScan } from './changes';
import { time } from './known';

export interface Scan {
	/** The updatedSince of every page of this scan (null: everything). */
	from: string | null;
	/** The newest updatedAt on the scan's first page; null until it was read. */
	top: string | null;
	/** The page cursor where each chunk not yet reported starts, oldest chunk last; '' is the first page. */
	marks: string[];
	discovering: boolean;
	/** The newest updatedAt among the chunks already reported; null before the first. */
	floor: string | null;
	/**
	 * The changes listed first in the chunk reported last (each booking's state, hashed): a run of changes stamped
	 * alike is not read twice. By state, not id: one of them changed since and stamped into the chunk being read is a
	 * change to report, not the end of the chunk.
	 */
	edge: string[];
	/**
	 * The newest change let go during this scan. It counts only once the scan is done: a booking cancelled while n8n
	 * was down is first seen late in the scan, and bookings changed after it may be let go before.
	 */
	forgotten?: string | null;
	/** When the first page was asked for (n8n's clock, ms): the position never passes it; the scan settles after it. */
	readAt?: number;
	/** Whether the first chunk within an overlap of `top` was read an overlap and a slack after `readAt` (see afterScan). */
	topSettles?: boolean;
}

export function withScan(state: PollState, scan: Scan): PollState {
	const next = { ...state };
	delete next.scan;
	if (scan.discovering || scan.marks.length > 0) {
		next.scan = scan;
		return next;
	}
	next.forgotten = latest(state.forgotten, scan.forgotten);
	if (scan.top === null || scan.readAt === undefined) return next;
	// The scan read everything up to its top: the position is there even when the change at the top was not reported
	// (not news, or changed again since and left to the next scan), so the next scan starts no earlier than the chunks
	// expected when they let changes go.
	const reach = reachOf(scan) ?? scan.top;
	next.cursor = latest(next.cursor, reach);
	return afterScan(next, reach, scan.readAt, scan.topSettles === true);
}

/** The scan's newest change, or n8n's clock when it asked for it if the service stamped it later. */
export function reachOf(scan: Scan): string | null {
	if (scan.top === null || scan.readAt === undefined) return scan.top;
	return time(scan.top) > scan.readAt ? new Date(scan.readAt).toISOString() : scan.top;
}

export function latest(a: string | null | undefined, b: string | null | undefined): string | null {
	if (!b) return a ?? null;
	return !a || time(b) > time(a) ? b : a;
}
