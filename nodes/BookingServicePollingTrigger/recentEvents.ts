/**
 * The latest event of each kind that a trigger's production polls reported in this n8n process, so that "Fetch Test
 * Event" can return a real reschedule or update: those can be told only from a booking's earlier state, which a
 * manual run does not have. Bounded: MAX_TRIGGERS triggers, one event per kind each; the least recently used
 * trigger is forgotten first.
 */
import type { BookingEvent, PolledEvent } from './changes';
import type { ListedBooking } from './known';

export const MAX_TRIGGERS = 200;

const byTrigger = new Map<string, Map<PolledEvent, BookingEvent<ListedBooking>>>();

export function rememberEvents(trigger: string, events: Array<BookingEvent<ListedBooking>>): void {
	if (events.length === 0) return;
	const latest = byTrigger.get(trigger) ?? new Map<PolledEvent, BookingEvent<ListedBooking>>();
	for (const event of events) latest.set(event.eventType, event);
	byTrigger.delete(trigger);
	byTrigger.set(trigger, latest);
	for (const oldest of byTrigger.keys()) {
		if (byTrigger.size <= MAX_TRIGGERS) break;
		byTrigger.delete(oldest);
	}
}

/** The trigger's remembered events, newest change first. */
export function recentEventsOf(trigger: string): Array<BookingEvent<ListedBooking>> {
	const latest = byTrigger.get(trigger);
	if (latest === undefined) return [];
	return [...latest.values()].sort((a, b) => Date.parse(b.eventCreatedAt) - Date.parse(a.eventCreatedAt));
}

export function triggersRemembered(): number {
	return byTrigger.size;
}
