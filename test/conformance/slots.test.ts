// Contract, GET /event-types/{id}/slots: start times from weekly availability in the host's time
// zone, minus bookings that hold time, calendar busy times, buffers, notice and daily limits; the
// 31-day range limit; calendarBlocked. The simulated clock is Monday 2030-01-07 09:00 in Tokyo (the
// host's zone).
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { NOW, bookingBody, eventTypeId, useSimulator } from './support/fixtures.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';

const sim = useSimulator();
let schemas: SchemaChecker;
beforeAll(async () => {
	schemas = await loadSchemas(sim());
});

async function slots(slug: string, query: string) {
	return call(sim(), 'GET', `/event-types/${eventTypeId(sim(), slug)}/slots?${query}`);
}

/** `HH:MM` in Tokyo of a UTC instant, for readable expectations. */
function tokyo(instant: string): string {
	return new Date(Date.parse(instant) + 9 * 3_600_000).toISOString().slice(11, 16);
}

async function book(slug: string, start: string, email = 'slots@example.com') {
	const response = await call(sim(), 'POST', '/bookings', {
		json: bookingBody(eventTypeId(sim(), slug), start, {
			booker: { name: 'Slot Test', email, timezone: 'Asia/Tokyo' },
		}),
	});
	expect(response.status, JSON.stringify(response.body)).toBe(201);
	return response.body;
}

describe('slot computation', () => {
	it('lays 30-minute starts on Tuesday 09:00–17:00 Tokyo, minus the calendar’s busy hour', async () => {
		const response = await slots('intro-call', 'from=2030-01-08&to=2030-01-08');
		expect(response.status).toBe(200);
		schemas.expect('Slots', response.body);
		expect(response.body.calendarBlocked).toBe(false);
		expect(response.body.slots.map(tokyo)).toEqual([
			'09:00',
			'09:30',
			'10:00',
			'10:30',
			'11:00',
			'11:30',
			'13:00',
			'13:30',
			'14:00',
			'14:30',
			'15:00',
			'15:30',
			'16:00',
			'16:30',
		]);
		expect(response.body.slots[0]).toBe('2030-01-08T00:00:00.000Z');
	});

	it('offers nothing at the weekend for a Monday–Friday type', async () => {
		const response = await slots('intro-call', 'from=2030-01-12&to=2030-01-13');
		expect(response.body.slots).toEqual([]);
	});

	it('keeps the minimum notice (two hours for intro-call), counted from the current minute', async () => {
		// Monday 09:00:30 in Tokyo: 11:00 is two hours after the current minute began.
		sim().control.setClock('2030-01-07T00:00:30.000Z');
		const atHalfMinute = (await slots('intro-call', 'from=2030-01-07&to=2030-01-07')).body.slots;
		expect(atHalfMinute.map(tokyo)).toEqual([
			'11:00',
			'11:30',
			'12:00',
			'12:30',
			'13:00',
			'13:30',
			'14:00',
			'14:30',
			'15:00',
			'15:30',
			'16:00',
			'16:30',
		]);
		// From 09:01 on, 11:00 is inside the notice.
		sim().control.setClock('2030-01-07T00:01:00.000Z');
		const nextMinute = (await slots('intro-call', 'from=2030-01-07&to=2030-01-07')).body.slots;
		expect(nextMinute.map(tokyo)[0]).toBe('11:30');
		sim().control.setClock(NOW);
	});

	it('removes times held by held, awaiting-payment and confirmed bookings of any type, not cancelled ones', async () => {
		// Seeded on Wednesday 9th: intro confirmed 09:30, intro held 11:00, language lesson confirmed
		// 15:00–15:50.
		const intro = (await slots('intro-call', 'from=2030-01-09&to=2030-01-09')).body.slots.map(
			tokyo,
		);
		expect(intro).toEqual([
			'09:00',
			'10:00',
			'10:30',
			'11:30',
			'13:00',
			'13:30',
			'14:00',
			'14:30',
			'16:00',
			'16:30',
		]);
		// Seeded: career coaching awaiting payment at 08:00 on Wednesday 9th.
		const coaching = (
			await slots('career-coaching', 'from=2030-01-09&to=2030-01-09')
		).body.slots.map(tokyo);
		// 08:00 is its own awaiting-payment booking; 09:00 and 11:00 collide with the intro bookings
		// above.
		expect(coaching).toEqual(['10:00']);
		// Seeded: intro cancelled at 10:00 on Monday 14th: the time is free again.
		const monday = (await slots('intro-call', 'from=2030-01-14&to=2030-01-14')).body.slots.map(
			tokyo,
		);
		expect(monday).toContain('10:00');
	});

	it('applies the event type’s buffer after a meeting (project-sync: 15 minutes)', async () => {
		// A booking at 11:30 on Monday 14th leaves project-sync's 10:45 start (10:45–11:30, then 15
		// minutes of buffer) unusable, though the meeting itself would not overlap.
		await book('intro-call', '2030-01-14T02:30:00.000Z');
		const sync = (await slots('project-sync', 'from=2030-01-14&to=2030-01-14')).body.slots.map(
			tokyo,
		);
		expect(sync).toContain('10:00');
		expect(sync).not.toContain('10:45');
		expect(sync).not.toContain('11:30');
		expect(sync).toContain('12:15');
	});

	it('offers no more starts on a day whose booking limit is reached (phone-consultation: 3 a day)', async () => {
		const before = (await slots('phone-consultation', 'from=2030-01-08&to=2030-01-08')).body.slots;
		expect(before.map(tokyo).slice(0, 3)).toEqual(['13:00', '13:20', '13:40']);
		await book('phone-consultation', before[0], 'one@example.com');
		await book('phone-consultation', before[1], 'two@example.com');
		expect(
			(await slots('phone-consultation', 'from=2030-01-08&to=2030-01-08')).body.slots.length,
		).toBeGreaterThan(0);
		await book('phone-consultation', before[2], 'three@example.com');
		expect((await slots('phone-consultation', 'from=2030-01-08&to=2030-01-08')).body.slots).toEqual(
			[],
		);
		const next = await call(sim(), 'POST', '/bookings', {
			json: bookingBody(eventTypeId(sim(), 'phone-consultation'), before[3]),
		});
		expect(next.status).toBe(409);
		expect(next.body.error.code).toBe('slot_unavailable');
	});

	it('includes invite-only event types', async () => {
		const response = await slots('phone-consultation', 'from=2030-01-09&to=2030-01-09');
		expect(response.status).toBe(200);
		expect(response.body.slots.length).toBeGreaterThan(0);
	});

	it('answers 409 event_type_inactive for an inactive event type', async () => {
		const response = await slots('legacy-workshop', 'from=2030-01-09&to=2030-01-09');
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('event_type_inactive');
	});

	it('reads from and to in the given time zone (the simulator’s choice), else in the host’s', async () => {
		const response = await slots(
			'intro-call',
			'from=2030-01-08&to=2030-01-08&timezone=America/Los_Angeles',
		);
		expect(response.status).toBe(200);
		// 2030-01-08 in Los Angeles is 08:00Z on the 8th to 08:00Z on the 9th.
		expect(response.body.slots.length).toBeGreaterThan(0);
		for (const slot of response.body.slots) {
			expect(slot >= '2030-01-08T08:00:00.000Z' && slot < '2030-01-09T08:00:00.000Z').toBe(true);
		}
	});

	it('reads a day that daylight saving shortens as 23 hours', async () => {
		// In New York, 2030-03-10 runs from 05:00Z to 04:00Z the next day (clocks go forward), and
		// 2030-03-11 from 04:00Z to 04:00Z.
		const shortDay = await slots(
			'intro-call',
			'from=2030-03-10&to=2030-03-10&timezone=America/New_York',
		);
		expect(shortDay.status).toBe(200);
		for (const slot of shortDay.body.slots) {
			expect(slot >= '2030-03-10T05:00:00.000Z' && slot < '2030-03-11T04:00:00.000Z').toBe(true);
		}
		// Monday 11th 09:00–12:30 in Tokyo is 00:00Z–03:30Z: still Sunday the 10th in New York.
		expect(shortDay.body.slots.map(tokyo)).toContain('12:30');
		expect(shortDay.body.slots.map(tokyo)).not.toContain('13:00');
		const nextDay = await slots(
			'intro-call',
			'from=2030-03-11&to=2030-03-11&timezone=America/New_York',
		);
		expect(nextDay.body.slots.map(tokyo)[0]).toBe('13:00');
	});

	it('reports calendarBlocked and an optimistic list while the calendar cannot be reached', async () => {
		sim().control.setCalendar({ reachable: false });
		const blocked = await slots('intro-call', 'from=2030-01-08&to=2030-01-08');
		expect(blocked.body.calendarBlocked).toBe(true);
		expect(blocked.body.slots.map(tokyo)).toContain('12:00');
		sim().control.setCalendar({ reachable: true });
		expect((await slots('intro-call', 'from=2030-01-08&to=2030-01-08')).body.calendarBlocked).toBe(
			false,
		);
	});
});

describe('slot query rules', () => {
	it('allows a range of exactly 31 days and refuses 32', async () => {
		const ok = await slots('intro-call', 'from=2030-01-08&to=2030-02-07');
		expect(ok.status).toBe(200);
		expect(ok.body.slots.at(-1) < '2030-02-08').toBe(true);
		const tooLong = await slots('intro-call', 'from=2030-01-08&to=2030-02-08');
		expect(tooLong.status).toBe(400);
		expect(tooLong.body.error).toMatchObject({
			code: 'validation_failed',
			details: [{ field: 'to' }],
		});
	});

	it.each([
		['from missing', 'to=2030-01-08', 'from'],
		['to missing', 'from=2030-01-08', 'to'],
		['to before from', 'from=2030-01-09&to=2030-01-08', 'to'],
		['not a date', 'from=2030-02-30&to=2030-03-01', 'from'],
		['wrong format', 'from=2030-1-8&to=2030-01-09', 'from'],
		['a date-time instead of a date', 'from=2030-01-08T00:00:00Z&to=2030-01-09', 'from'],
		['an unknown time zone', 'from=2030-01-08&to=2030-01-09&timezone=Mars/Olympus', 'timezone'],
		[
			'an offset instead of a zone name',
			'from=2030-01-08&to=2030-01-09&timezone=%2B09:00',
			'timezone',
		],
	])('refuses %s', async (_name, query, field) => {
		const response = await slots('intro-call', query);
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(
			field,
		);
	});
});
