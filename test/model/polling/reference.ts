/**
 * The polling trigger's reference model: what the service changed and when (its own record, one version per change),
 * and what the workflow received, compared. Kept simple on purpose: a version is a booking's status, start, end and
 * updatedAt (and its notes, to tell apart two versions stamped alike); every item must show a version made after
 * activation, each booking's items in the order of its versions with none twice, its kind told by the last version
 * reported before it; after the final drain every booking's last version was reported. A limit this tolerates is a
 * documented one (docs/polling-trigger.md, "Limits, stated plainly"), named where it is.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { Booking } from '../../simulator/index.ts';

export interface Version {
	status: string;
	start: string;
	end: string;
	updatedAt: string;
	/**
	 * The booker's notes it had: two versions with the same status, times and stamp (a write late by a millisecond or
	 * two) are told apart by them; a version merged with a later edit in its millisecond had each.
	 */
	notes: Array<string | null>;
	/** Made after the activation poll read the service (false: history the trigger must not report). */
	afterActivation: boolean;
	/** How many changes of other bookings the service had made before this version (for the 500 let go). */
	changesBefore: number;
}

const IN_FLIGHT = new Set(['held', 'awaiting_payment']);
const key = (b: Pick<Version, 'status' | 'start' | 'end' | 'updatedAt'>) =>
	`${b.status}|${b.start}|${b.end}|${b.updatedAt}`;

export class PollingReference {
	readonly versions = new Map<string, Version[]>();
	/** Bookings known at activation (upcoming or in flight): the trigger knows their state then. */
	readonly atActivation = new Map<string, Version>();
	changes = 0;
	activated = false;

	/** A booking as the service shows it right after a change (or at the start: history). */
	record(booking: Booking): void {
		const list = this.versions.get(booking.id) ?? [];
		const version: Version = {
			status: booking.status,
			start: booking.start,
			end: booking.end,
			updatedAt: booking.updatedAt,
			notes: [booking.bookerNotes],
			afterActivation: this.activated,
			changesBefore: this.changes,
		};
		// Two changes in one millisecond that differ only in other fields are one Updated event (documented limit).
		if (list.length > 0 && key(list[list.length - 1]) === key(version)) {
			list[list.length - 1].notes.push(booking.bookerNotes);
			return;
		}
		list.push(version);
		this.versions.set(booking.id, list);
		this.changes += 1;
	}

	/** The activation poll has read the service: from here on every change must be reported. */
	activate(): void {
		this.activated = true;
		for (const [id, list] of this.versions) {
			const last = list[list.length - 1];
			if (IN_FLIGHT.has(last.status) || last.status === 'confirmed') this.atActivation.set(id, last);
		}
	}

	/** Every failure of the trigger's promises in what it emitted; [] when it kept them all. */
	check(emitted: INodeExecutionData[], drained: boolean): string[] {
		const failures: string[] = [];
		const reported = new Map<string, number>();
		const eventIds = new Set<string>();
		for (const [index, item] of emitted.entries()) {
			const json = item.json as {
				eventId: string;
				eventType: string;
				booking: Booking;
				previous?: unknown;
			};
			const where = `item ${index} (${json.eventType} ${json.booking.id} ${key(json.booking)})`;
			if (eventIds.has(json.eventId)) failures.push(`${where}: eventId ${json.eventId} twice`);
			eventIds.add(json.eventId);
			const list = this.versions.get(json.booking.id) ?? [];
			const at = list.findLastIndex(
				(version) => key(version) === key(json.booking) && version.notes.includes(json.booking.bookerNotes),
			);
			if (at < 0) {
				failures.push(`${where}: a state the service never had`);
				continue;
			}
			if (!list[at].afterActivation) {
				failures.push(`${where}: a change made before activation`);
				continue;
			}
			const last = reported.get(json.booking.id);
			if (last !== undefined && at <= last) {
				failures.push(`${where}: reported again or out of order (after version ${last})`);
				continue;
			}
			const previous = last !== undefined ? list[last] : this.atActivation.get(json.booking.id);
			const lettingGo = this.#mayHaveBeenLetGo(previous ?? list[0], list[at]);
			const expected = expectedKinds(previous, list[at], lettingGo);
			if (!expected.includes(json.eventType)) {
				failures.push(`${where}: expected ${expected.join(' or ')} after ${previous ? key(previous) : 'nothing'}`);
			} else if (json.eventType === 'booking.rescheduled') {
				const want = JSON.stringify({
					start: previous?.start,
					end: previous?.end,
				});
				if (JSON.stringify(json.previous) !== want)
					failures.push(`${where}: previous ${JSON.stringify(json.previous)}, expected ${want}`);
			}
			reported.set(json.booking.id, at);
		}
		if (!drained) return failures;
		for (const [id, list] of this.versions) {
			const lastIndex = list.length - 1;
			const final = list[lastIndex];
			if (!final.afterActivation || IN_FLIGHT.has(final.status)) continue;
			if (reported.get(id) !== lastIndex)
				failures.push(`booking ${id}: its last change ${key(final)} was never reported`);
		}
		return failures;
	}

	/**
	 * Documented limit: the trigger remembers only the 500 other bookings changed last (past, not in flight, not
	 * upcoming). A booking in one of those states, with more than 500 changes of others between, may be let go.
	 */
	#mayHaveBeenLetGo(previous: Version, current: Version): boolean {
		const upcoming = previous.status === 'confirmed' && Date.parse(previous.start) > Date.parse(current.updatedAt);
		return !upcoming && !IN_FLIGHT.has(previous.status) && current.changesBefore - previous.changesBefore > 500;
	}
}

/**
 * The kinds an item may have, told by the last state the trigger knew (`previous`; undefined: a booking made after
 * activation that it never reported) — the table "What it reports" in docs/polling-trigger.md; with `lettingGo`, also
 * as a booking it never saw.
 */
export function expectedKinds(previous: Version | undefined, current: Version, lettingGo: boolean): string[] {
	const told = toldByPrevious(previous, current);
	return lettingGo ? [...new Set([...told, ...neverSaw(current)])] : told;
}

function toldByPrevious(previous: Version | undefined, current: Version): string[] {
	const wasInFlight = previous === undefined || IN_FLIGHT.has(previous.status);
	switch (current.status) {
		case 'confirmed':
			if (wasInFlight) return ['booking.created'];
			if (previous.status === 'confirmed' && (previous.start !== current.start || previous.end !== current.end))
				return ['booking.rescheduled'];
			return ['booking.updated'];
		case 'cancelled':
			return previous?.status === 'cancelled' ? ['booking.updated'] : ['booking.cancelled'];
		case 'no_show':
			return previous?.status === 'no_show' ? ['booking.updated'] : ['booking.no_show'];
		case 'completed':
			return previous?.status === 'completed' ? ['booking.updated'] : ['booking.completed'];
		default:
			return ['booking.updated'];
	}
}

/** A booking the trigger let go: told by its status alone (documented: "A booking the trigger let go …"). */
function neverSaw(current: Version): string[] {
	switch (current.status) {
		case 'no_show':
			return ['booking.no_show'];
		case 'completed':
			return ['booking.completed'];
		case 'cancelled':
			return ['booking.cancelled', 'booking.updated'];
		default:
			return ['booking.updated'];
	}
}
