/** The polling trigger's in-process memory of recent events for Fetch Test Event: bounded, newest change first. */
import { describe, expect, it } from 'vitest';

import type { BookingEvent, PolledEvent } from '../../nodes/BookingServicePollingTrigger/changes.ts';
import {
	MAX_TRIGGERS,
	recentEventsOf,
	rememberEvents,
	triggersRemembered,
} from '../../nodes/BookingServicePollingTrigger/recentEvents.ts';

const event = (type: PolledEvent, at: string): BookingEvent => ({
	eventId: `evt_${type}_${at}`,
	eventType: type,
	eventCreatedAt: at,
	booking: { id: 'a'.repeat(24), status: 'confirmed', start: at, end: at, createdAt: at, updatedAt: at },
});

describe('recent events', () => {
	it('keeps one event per kind per trigger, newest change first', () => {
		rememberEvents('wf/1', [event('booking.created', '2026-03-02T09:00:00.000Z'), event('booking.rescheduled', '2026-03-02T10:00:00.000Z')]);
		rememberEvents('wf/1', [event('booking.created', '2026-03-02T11:00:00.000Z')]);
		expect(recentEventsOf('wf/1').map((item) => [item.eventType, item.eventCreatedAt])).toEqual([
			['booking.created', '2026-03-02T11:00:00.000Z'],
			['booking.rescheduled', '2026-03-02T10:00:00.000Z'],
		]);
	});

	it(`is bounded at ${MAX_TRIGGERS} triggers, the least recently used forgotten first`, () => {
		for (let index = 0; index < MAX_TRIGGERS + 50; index++) {
			rememberEvents(`wf/bulk-${index}`, [event('booking.updated', '2026-03-02T09:00:00.000Z')]);
		}
		expect(triggersRemembered()).toBe(MAX_TRIGGERS);
		expect(recentEventsOf('wf/bulk-0')).toEqual([]);
		expect(recentEventsOf(`wf/bulk-${MAX_TRIGGERS + 49}`)).toHaveLength(1);
	});
});
