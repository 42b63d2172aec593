/**
 * How Create tells a 409 apart from the free times around the start (whyStartNotFree), for shapes the simulator's
 * seed does not have: a lunch break, no free time at all, a time freed again meanwhile. The engine test
 * (engine/start-not-free) covers the rest through n8n against the simulator.
 */
import { describe, expect, it } from 'vitest';

import { whyStartNotFree } from '../../nodes/BookingService/helpers/startNotFree.ts';

const at = (time: string) => Date.parse(`2026-03-03T${time}:00Z`);
/** A host working 09:00–12:00 and 13:00–17:00 UTC, 60-minute slots, on 2026-03-03 and 2026-03-04. */
const workingDays = ['2026-03-03', '2026-03-04'].flatMap((day) =>
	['09', '10', '11', '13', '14', '15', '16'].map((hour) => Date.parse(`${day}T${hour}:00:00Z`)),
);

describe('why a start was not free', () => {
	it('a start in the lunch break (on the grid, between free times) is outside the host\'s hours, not taken', () => {
		expect(whyStartNotFree(at('12:00'), workingDays, 'UTC').message).toBe(
			"The start 2026-03-03 12:00 (UTC) is outside the host's hours: no day around it has a free start at 12:00, and that day's free times run from 09:00 to 16:00; no booking was made. The nearest free times: 2026-03-03 11:00, 2026-03-03 13:00, 2026-03-03 14:00.",
		);
	});

	it('a start whose time is free on another day was taken', () => {
		const taken = workingDays.filter((instant) => instant !== at('14:00'));
		expect(whyStartNotFree(at('14:00'), taken, 'UTC').message).toMatch(/^The start 2026-03-03 14:00 \(UTC\) is no longer free: the same time is free on other days/);
	});

	it('no free time at all: says so, and names none', () => {
		expect(whyStartNotFree(at('10:00'), [], 'UTC').message).toBe(
			'The start 2026-03-03 10:00 (UTC) is not a free time, and this event type has no free time in the 9 days after it either; no booking was made.',
		);
	});

	it('a start that is free again now: run it again', () => {
		expect(whyStartNotFree(at('10:00'), workingDays, 'UTC').message).toBe(
			'The start 2026-03-03 10:00 (UTC) was not free when the booking was sent, but is free again now; no booking was made. Run the node again to book it.',
		);
	});

	it('the nearest free times: more after the start when none is before it', () => {
		expect(whyStartNotFree(at('08:30'), workingDays, 'UTC').message).toMatch(
			/not one of this event type's start times; no booking was made\. The nearest free times: 2026-03-03 09:00, 2026-03-03 10:00, 2026-03-03 11:00\.$/,
		);
	});
});
