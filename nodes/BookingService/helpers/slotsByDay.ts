// Get Available Slots' compact output (Local Times by Day), written for a person or a model reading it in a chat.
import type { IDataObject } from 'n8n-workflow';

import { formatInZone } from '../../shared/time';

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * Sorted slots grouped by their local day: `{ date, weekday, times: ['09:00 UTC+01:00', …] }`. The weekday is given
 * because a model asked for "next Thursday" is bad at calendar arithmetic. Each time keeps its offset, marked as one
 * ("19:00-05:00" reads as a range from 19:00 to 05:00), so a day and a time joined with T (2026-03-02T09:00 UTC+01:00)
 * are the exact instant, which Create accepts as Start, even on a day the offset changes.
 */
export function slotsByLocalDay(instants: number[], zone: string): IDataObject[] {
	const days: Array<{ date: string; weekday: string; times: string[] }> = [];
	for (const instant of instants) {
		const local = formatInZone(instant, zone);
		const date = local.slice(0, 10);
		const clock = local.slice(11, 19);
		const offset = local.slice(19);
		const time = `${clock.endsWith(':00') ? clock.slice(0, 5) : clock} UTC${offset === '+00:00' ? '' : offset}`;
		let day = days[days.length - 1];
		if (day?.date !== date) {
			day = { date, weekday: WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()], times: [] };
			days.push(day);
		}
		day.times.push(time);
	}
	return days;
}
