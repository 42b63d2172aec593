/**
 * One time-zone rule for the whole node, in a workflow whose time zone is not UTC: every date or date-time without
 * an offset — as n8n's date picker writes them — and the days of Get Available Slots are read in the workflow's zone
 * unless the operation's Time Zone option names another; zone names reach the service in their canonical spelling;
 * output shows UTC and local times.
 */
import { describe, expect, it } from 'vitest';

import { PADDING_DAYS } from '../../nodes/BookingService/actions/eventType/getSlots.operation.ts';
import { formatInZone, parseDateTime, startOfDay } from '../../nodes/shared/time.ts';
import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { createBookingParameters, credentialsFor, eventTypeId, freeSlots, requestsTo, useTestSimulator } from '../harness/fixtures.ts';

const sim = useTestSimulator();

/** The wall-clock text n8n's date picker stores for an instant shown in a zone: no Z, no offset. */
function pickerValue(instant: string, zone: string): string {
	return formatInZone(Date.parse(instant), zone).slice(0, 19);
}

function createBooking(start: string, extra: Record<string, unknown> = {}) {
	return bookingServiceNode('Book', createBookingParameters(eventTypeId(sim, 'intro-call'), start, extra));
}

describe('Booking → Create', () => {
	it("a picked time without Z is booked at that time in the workflow's zone, and shown in it", async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const typed = pickerValue(slot, 'America/New_York');
		const result = await runWorkflow({
			nodes: [createBooking(typed)],
			credentials: credentialsFor(sim),
			timezone: 'America/New_York',
		});

		expect(result.error).toBeUndefined();
		const booking = result.items.Book[0].json;
		expect(Date.parse(String(booking.start))).toBe(Date.parse(slot));
		expect(booking.localTimeZone).toBe('America/New_York');
		expect(String(booking.localStart).slice(0, 19)).toBe(typed);
		expect(sim.control.bookings().filter((held) => held.start === booking.start)).toHaveLength(1);
	});

	it('Options → Time Zone overrides the workflow zone, whatever its letter case', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const result = await runWorkflow({
			nodes: [createBooking(pickerValue(slot, 'Asia/Tokyo'), { options: { timeZone: 'asia/TOKYO' } })],
			credentials: credentialsFor(sim),
			timezone: 'America/New_York',
		});

		expect(result.error).toBeUndefined();
		expect(Date.parse(String(result.items.Book[0].json.start))).toBe(Date.parse(slot));
		expect(result.items.Book[0].json.localTimeZone).toBe('Asia/Tokyo');
	});

	it('a value with Z or an offset means that instant, whatever the zones', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const withOffset = formatInZone(Date.parse(slot), 'Asia/Kolkata');
		const result = await runWorkflow({
			nodes: [createBooking(withOffset, { options: { timeZone: 'Pacific/Kiritimati' } })],
			credentials: credentialsFor(sim),
			timezone: 'America/New_York',
		});

		expect(Date.parse(String(result.items.Book[0].json.start))).toBe(Date.parse(slot));
	});

	it('Booker Time Zone reaches the service in its canonical spelling', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		const result = await runWorkflow({
			nodes: [createBooking(slot, { bookerTimeZone: 'europe/BERLIN' })],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toBeUndefined();
		const held = sim.control.bookings().find((booking) => booking.id === result.items.Book[0].json.id);
		expect(held?.booker.timezone).toBe('Europe/Berlin');
	});

	it('Booker Time Zone has no default: empty, the item fails before anything is sent', async () => {
		const [slot] = await freeSlots(sim, 'intro-call');
		sim.control.clearRequests();
		// Left blank in the panel, n8n itself refuses to run the node (a required parameter); an expression that
		// gives nothing (a form field the customer skipped) reaches the node's own check.
		const result = await runWorkflow({
			nodes: [createBooking(slot, { bookerTimeZone: '={{ $json.zone }}' })],
			startItems: [{ zone: '' }],
			credentials: credentialsFor(sim),
		});

		expect(result.error?.message).toBe('Booker Time Zone is required [item 0]');
		expect(requestsTo(sim)).toEqual([]);
	});
});

describe('Booking → Get Many', () => {
	it("Start From / Start To picked without Z are read in the workflow's zone", async () => {
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode('List', {
					resource: 'booking',
					operation: 'getMany',
					returnAll: true,
					filters: { startFrom: '2026-03-03T09:00:00', startTo: '2026-03-04 18:30' },
				}),
			],
			credentials: credentialsFor(sim),
			timezone: 'Asia/Tokyo',
		});

		expect(result.error).toBeUndefined();
		const [request] = requestsTo(sim, '/bookings');
		expect(request.query).toMatchObject({
			startFrom: '2026-03-03T00:00:00Z',
			startTo: '2026-03-04T09:30:00Z',
		});
		for (const { json } of result.items.List) expect(json.localTimeZone).toBe('Asia/Tokyo');
	});
});

describe('Event Type → Get Available Slots', () => {
	const getSlots = (from: string, to: string, extra: Record<string, unknown> = {}) =>
		bookingServiceNode('Slots', {
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: eventTypeId(sim, 'intro-call') },
			from,
			to,
			...extra,
		});

	it("From and To are days of the workflow's zone, and the service is told that zone", async () => {
		const result = await runWorkflow({
			nodes: [getSlots('2026-03-04', '2026-03-05')],
			credentials: credentialsFor(sim),
			timezone: 'America/Los_Angeles',
		});

		expect(result.error).toBeUndefined();
		const output = result.items.Slots[0].json as Record<string, any>;
		expect(output.timeZone).toBe('America/Los_Angeles');
		expect(output.slots.length).toBeGreaterThan(0);
		const dayStart = startOfDay(Date.parse('2026-03-04') / 86_400_000, 'America/Los_Angeles');
		const dayEnd = startOfDay(Date.parse('2026-03-06') / 86_400_000, 'America/Los_Angeles');
		for (const slot of output.slots as string[]) {
			expect(Date.parse(slot)).toBeGreaterThanOrEqual(dayStart);
			expect(Date.parse(slot)).toBeLessThan(dayEnd);
		}
		expect(output.localSlots.every((local: string) => local.endsWith('-08:00'))).toBe(true);
		for (const request of requestsTo(sim, '/event-types/{id}/slots')) {
			expect(request.query.timezone).toBe('America/Los_Angeles');
		}
	});

	it('gives the same slots however the service reads days (any zone up to 26 h away)', async () => {
		const run = async () =>
			(
				await runWorkflow({
					nodes: [getSlots('2026-03-03', '2026-03-12')],
					credentials: credentialsFor(sim),
					timezone: 'Pacific/Kiritimati',
				})
			).items.Slots[0].json.slots;
		const asAsked = await run();
		sim.control.setSlotDayZone({ zone: 'Etc/GMT+12' });
		const readAtUtcMinus12 = await run();
		sim.control.setSlotDayZone({ zone: 'Pacific/Kiritimati' });
		const readAtUtcPlus14 = await run();

		expect((asAsked as string[]).length).toBeGreaterThan(50);
		expect(readAtUtcMinus12).toEqual(asAsked);
		expect(readAtUtcPlus14).toEqual(asAsked);
	});

	it("the padding covers any two zones' days (UTC-12 … UTC+14)", () => {
		const zones = ['Etc/GMT+12', 'Pacific/Pago_Pago', 'UTC', 'Asia/Tokyo', 'Pacific/Kiritimati'];
		const day = Date.parse('2026-03-04') / 86_400_000;
		for (const ours of zones) {
			for (const theirs of zones) {
				expect(startOfDay(day - PADDING_DAYS, theirs)).toBeLessThanOrEqual(startOfDay(day, ours));
				expect(startOfDay(day + 1 + PADDING_DAYS, theirs)).toBeGreaterThanOrEqual(startOfDay(day + 1, ours));
			}
		}
	});

	it('Output → One Item per Slot: each slot its own item, with its local time', async () => {
		const result = await runWorkflow({
			nodes: [getSlots('2026-03-04', '2026-03-04', { output: 'itemPerSlot' })],
			credentials: credentialsFor(sim),
			timezone: 'Europe/Berlin',
		});

		const items = result.items.Slots.map((item) => item.json);
		expect(items.length).toBeGreaterThan(1);
		for (const item of items) {
			expect(item).toEqual({
				eventTypeId: eventTypeId(sim, 'intro-call'),
				slot: expect.stringMatching(/Z$/),
				localSlot: formatInZone(Date.parse(String(item.slot)), 'Europe/Berlin'),
				timeZone: 'Europe/Berlin',
				calendarBlocked: false,
			});
		}
		expect(result.items.Slots.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});
	it('Output → Local Times by Day: each day with its weekday, every time with its offset marked as one, the same instants', async () => {
		// Europe/Berlin moves from +01:00 to +02:00 on Sunday 2026-03-29: Friday's and Monday's offsets differ.
		const run = async (output: string) =>
			(
				await runWorkflow({
					nodes: [getSlots('2026-03-27', '2026-03-30', { output })],
					credentials: credentialsFor(sim),
					timezone: 'Europe/Berlin',
				})
			).items.Slots[0].json;
		const all = await run('oneItem');
		const byDay = await run('byDay');
		const days = byDay.days as Array<{ date: string; weekday: string; times: string[] }>;

		expect(byDay).toMatchObject({ timeZone: 'Europe/Berlin', from: '2026-03-27', to: '2026-03-30', slotCount: all.slotCount });
		expect(days.map(({ date, weekday }) => [date, weekday])).toEqual([
			['2026-03-27', 'Friday'],
			['2026-03-30', 'Monday'],
		]);
		// "09:00+01:00" read as a range from 09:00 to 01:00; "09:00 UTC+01:00" cannot be.
		expect(days[0].times[0]).toMatch(/^\d\d:\d\d UTC\+01:00$/);
		expect(days[1].times[0]).toMatch(/^\d\d:\d\d UTC\+02:00$/);
		const joined = days.flatMap(({ date, times }) => times.map((time) => `${date}T${time}`));
		expect(joined.map((start) => parseDateTime(start, 'UTC'))).toEqual(
			(all.slots as string[]).map((slot) => Date.parse(slot)),
		);
		expect(JSON.stringify(byDay).length).toBeLessThan(JSON.stringify(all).length / 2);
	});

	it('a day and a time joined with T are a Start that Create books at exactly that slot, across a DST change', async () => {
		const byDay = (
			await runWorkflow({
				nodes: [getSlots('2026-03-27', '2026-03-30', { output: 'byDay' })],
				credentials: credentialsFor(sim),
				timezone: 'Europe/Berlin',
			})
		).items.Slots[0].json;
		const monday = (byDay.days as Array<{ date: string; times: string[] }>)[1];
		const start = `${monday.date}T${monday.times[0]}`;
		// A workflow in another zone: the offset in the text decides, not the zone.
		const booked = await runWorkflow({
			nodes: [
				bookingServiceNode('Book', {
					resource: 'booking',
					operation: 'create',
					eventType: { __rl: true, mode: 'id', value: eventTypeId(sim, 'intro-call') },
					start,
					bookerName: 'Ada',
					bookerEmail: 'ada@example.com',
					bookerTimeZone: 'Europe/Berlin',
				}),
			],
			credentials: credentialsFor(sim),
			timezone: 'America/Los_Angeles',
		});

		expect(booked.error).toBeUndefined();
		expect(Date.parse(String(booked.items.Book[0].json.start))).toBe(parseDateTime(start, 'UTC'));
		expect(booked.items.Book[0].json.localStart).toBe(formatInZone(parseDateTime(start, 'UTC')!, 'America/Los_Angeles'));
	});
});
