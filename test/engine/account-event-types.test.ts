/**
 * Account → Get, Event Type → Get Many and Get Available Slots as workflows in n8n's engine against the simulator.
 */
import { describe, expect, it } from 'vitest';

import { formatInZone } from '../../nodes/shared/time.ts';
import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import {
	credentialsFor,
	eventTypeId,
	requestsTo,
	useTestSimulator,
} from '../harness/fixtures.ts';

const sim = useTestSimulator();

async function run(
	parameters: Record<string, unknown>,
	key: 'readWrite' | 'readOnly' = 'readWrite',
) {
	const result = await runWorkflow({
		nodes: [bookingServiceNode('Node', parameters)],
		credentials: credentialsFor(sim, key),
	});
	return {
		...result,
		json: (result.items.Node ?? []).map((item) => item.json as Record<string, any>),
	};
}

const DAY_MS = 86_400_000;

/** The slots the simulator offers in [fromDay, toDay] (inclusive, YYYY-MM-DD), asked directly, ≤ 31 days a call. */
async function slotsFromService(
	slug: string,
	fromDay: string,
	toDay: string,
	timeZone = 'UTC',
): Promise<string[]> {
	const slots: string[] = [];
	for (let start = Date.parse(fromDay); start <= Date.parse(toDay); start += 31 * DAY_MS) {
		const end = Math.min(start + 30 * DAY_MS, Date.parse(toDay));
		const query = `from=${new Date(start).toISOString().slice(0, 10)}&to=${new Date(end).toISOString().slice(0, 10)}&timezone=${timeZone}`;
		const response = await fetch(
			`${sim.baseUrl}/event-types/${eventTypeId(sim, slug)}/slots?${query}`,
			{
				headers: { Authorization: `Bearer ${sim.apiKeys.readWrite}` },
			},
		);
		slots.push(...((await response.json()) as { slots: string[] }).slots);
	}
	return slots.map((slot) => new Date(slot).toISOString().replace('.000Z', 'Z'));
}

describe('Account → Get', () => {
	it('returns the account with the scopes of the key, also for a read-only key', async () => {
		const { json, error } = await run({ resource: 'account', operation: 'get' }, 'readOnly');

		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		expect(json[0]).toMatchObject({
			timezone: expect.any(String),
			scopes: ['event_types:read', 'bookings:read'],
		});
	});
});

describe('Event Type → Get Many', () => {
	it('active ones by default, in the app order', async () => {
		const { json } = await run({ resource: 'eventType', operation: 'getMany', returnAll: true });

		const active = sim.control.eventTypes().filter((eventType) => eventType.active);
		expect(json.map((eventType) => eventType.id)).toEqual(active.map((eventType) => eventType.id));
	});

	it('"Active and Inactive" lists the active ones, then the inactive ones', async () => {
		const { json } = await run({
			resource: 'eventType',
			operation: 'getMany',
			active: 'all',
			returnAll: true,
		});

		const all = sim.control.eventTypes();
		const expected = [...all.filter((e) => e.active), ...all.filter((e) => !e.active)];
		expect(json.map((eventType) => eventType.id)).toEqual(
			expected.map((eventType) => eventType.id),
		);
		expect(requestsTo(sim, '/event-types').map((request) => request.query.active)).toEqual([
			'true',
			'false',
		]);
	});

	it('Limit asks for no more than it needs', async () => {
		const { json } = await run({
			resource: 'eventType',
			operation: 'getMany',
			returnAll: false,
			limit: 2,
		});

		expect(json).toHaveLength(2);
		expect(requestsTo(sim, '/event-types').map((request) => request.query.limit)).toEqual(['2']);
	});

	it('Name Language Japanese resolves names from nameI18n', async () => {
		const { json } = await run({
			resource: 'eventType',
			operation: 'getMany',
			returnAll: true,
			options: { nameLanguage: 'ja' },
		});

		const byId = new Map(sim.control.eventTypes().map((eventType) => [eventType.id, eventType]));
		for (const eventType of json) {
			const source = byId.get(eventType.id)!;
			expect(eventType.name).toBe(source.nameI18n.ja ?? source.name);
			expect(eventType.nameI18n).toEqual(source.nameI18n);
		}
		expect(json.some((eventType) => eventType.name !== byId.get(eventType.id)!.name)).toBe(true);
	});
});

describe('Event Type → Get Available Slots', () => {
	const slotsOf = (slug: string, from: string, to: string, options: Record<string, unknown> = {}) =>
		run({
			resource: 'eventType',
			operation: 'getSlots',
			eventType: { __rl: true, mode: 'id', value: eventTypeId(sim, slug) },
			from,
			to,
			options,
		});

	it('returns the UTC slots of the requested days and says whether the calendar was reachable', async () => {
		const { json, error } = await slotsOf('intro-call', '2026-03-03', '2026-03-09');

		expect(error).toBeUndefined();
		expect(json).toHaveLength(1);
		const expected = (await slotsFromService('intro-call', '2026-03-02', '2026-03-10')).filter(
			(slot) => slot >= '2026-03-03T00:00:00Z' && slot < '2026-03-10T00:00:00Z',
		);
		expect(expected.length).toBeGreaterThan(0);
		expect(json[0]).toEqual({
			eventTypeId: eventTypeId(sim, 'intro-call'),
			from: '2026-03-03',
			to: '2026-03-09',
			timeZone: 'UTC',
			calendarBlocked: false,
			slotCount: expected.length,
			slots: expected,
			localSlots: expected.map((slot) => formatInZone(Date.parse(slot), 'UTC')),
		});
	});

	it('a range of four months is asked in windows of at most 31 days and merged in order without duplicates', async () => {
		const { json } = await slotsOf('intro-call', '2026-03-03', '2026-06-30');

		const windows = requestsTo(sim, '/event-types/{id}/slots').map((request) => ({
			from: Date.parse(request.query.from as string),
			to: Date.parse(request.query.to as string),
		}));
		expect(windows.length).toBeGreaterThan(3);
		for (const [index, window] of windows.entries()) {
			expect((window.to - window.from) / DAY_MS + 1).toBeLessThanOrEqual(31);
			if (index > 0) expect(window.from).toBe(windows[index - 1].to + DAY_MS); // contiguous, no overlap
		}
		const slots = json[0].slots as string[];
		expect(slots).toEqual([...new Set(slots)].sort());
		const expected = (await slotsFromService('intro-call', '2026-03-03', '2026-06-30')).filter(
			(slot) => slot < '2026-07-01T00:00:00Z',
		);
		expect(slots).toEqual(expected);
	});

	it("with a time zone: days are that zone's days, and local times come with the UTC ones", async () => {
		const { json } = await slotsOf('intro-call', '2026-03-03', '2026-03-05', {
			timeZone: 'Asia/Tokyo',
		});

		const result = json[0];
		expect(result.timeZone).toBe('Asia/Tokyo');
		expect(result.slots.length).toBeGreaterThan(0);
		expect(result.localSlots).toEqual(
			result.slots.map((slot: string) => formatInZone(Date.parse(slot), 'Asia/Tokyo')),
		);
		for (const local of result.localSlots as string[]) {
			expect(local.slice(0, 10) >= '2026-03-03' && local.slice(0, 10) <= '2026-03-05').toBe(true);
			expect(local.endsWith('+09:00')).toBe(true);
		}
	});

	it('surfaces calendarBlocked, and fails on it when asked to', async () => {
		sim.control.setCalendar({ reachable: false });
		const lenient = await slotsOf('intro-call', '2026-03-03', '2026-03-05');
		const strict = await slotsOf('intro-call', '2026-03-03', '2026-03-05', {
			failWhenCalendarBlocked: true,
		});

		expect(lenient.json[0].calendarBlocked).toBe(true);
		expect(lenient.run.data.resultData.runData.Node[0].hints).toEqual([
			expect.objectContaining({ type: 'warning', message: expect.stringMatching(/calendar could not be reached/) }),
		]);
		expect(strict.error).toMatchObject({ name: 'NodeOperationError' });
		expect(strict.error!.message).toMatch(/calendar could not be reached/);
	});

	it('an inactive event type fails with event_type_inactive explained', async () => {
		const inactive = sim.control.eventTypes().find((eventType) => !eventType.active)!;
		const { error } = await slotsOf(inactive.slug, '2026-03-03', '2026-03-05');

		expect(error!.message).toMatch(/event type is inactive/);
	});
});
