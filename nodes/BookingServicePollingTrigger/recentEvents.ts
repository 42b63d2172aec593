// The latest event of each kind a trigger's production polls reported in this process, so "Fetch Test Event" can show
// a real reschedule or update (a manual run lacks the earlier state). Bounded: MAX_TRIGGERS, one event per kind each.
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

export function recentEventsOf(trigger: string): Array<BookingEvent<ListedBooking>> {
	const latest = byTrigger.get(trigger);
	if (latest === undefined) return [];
	return [...latest.values()].sort((a, b) => Date.parse(b.eventCreatedAt) - Date.parse(a.eventCreatedAt));
}

export function triggersRemembered(): number {
	return byTrigger.size;
}
