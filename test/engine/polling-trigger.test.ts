/**
 * The Booking Service Polling Trigger through n8n-core's PollContext against the simulator: where it starts, every
 * kind of change once with the webhook trigger's item shape, an idle poll's single request, failures that lose
 * nothing, a backlog of many pages, restarts after quiet and emitting polls, a manual fetch that leaves the
 * production position alone, and a copy of the workflow.
 */
import { describe, expect, it } from 'vitest';

import { eventTypeId, freeSlots, requestsTo, useTestSimulator } from '../harness/fixtures.ts';
import { PollHarness } from '../harness/poller.ts';
import { ALL_EVENTS, bookingId, pollingFixtures } from '../harness/polling-fixtures.ts';

const sim = useTestSimulator();
const { poller, later, book } = pollingFixtures(sim);
const kinds = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.eventType);

describe('Booking Service Polling Trigger', () => {
	it('starts from now: the first poll reports nothing of the history; an idle poll asks once', async () => {
		const trigger = poller();
		sim.control.clearRequests();

		expect(await trigger.poll()).toEqual([]);
		// Activation: the newest change (for the service's clock), upcoming bookings (+ one per in-flight status), the
		// newest change again (the position), and the changes in the overlap before it.
		expect(requestsTo(sim, '/bookings').filter((request) => !request.query.status)).toHaveLength(4);
		sim.control.clearRequests();
		expect(await trigger.poll()).toEqual([]);
		// An idle poll: the bookings changed since its position, nothing else (one held or awaiting payment since is told
		// by its own creation time when it is paid).
		expect(requestsTo(sim).map((request) => request.query.status ?? 'listing')).toEqual(['listing']);
	});

	it('reports every kind of change once, with the webhook trigger’s item shape', async () => {
		const trigger = poller();
		await trigger.poll();
		const [later1] = (await freeSlots(sim, 'intro-call')).slice(-1);

		await later();
		const created = await book(sim);
		expect(kinds(await trigger.poll())).toEqual(['booking.created']);
		await later();
		sim.control.reschedule(created.id, { start: later1, by: 'booker' });
		const [rescheduled] = await trigger.poll();
		expect(rescheduled.json).toEqual({
			eventId: expect.stringMatching(/^evt_poll_/),
			eventType: 'booking.rescheduled',
			eventCreatedAt: expect.any(String),
			booking: expect.objectContaining({ id: created.id, start: later1 }),
			previous: { start: expect.any(String), end: expect.any(String) },
		});
		expect((rescheduled.json.previous as { start: string }).start).not.toBe(later1);
		await later();
		sim.control.editNotes(created.id, { notes: 'Parking at the back' });
		expect(kinds(await trigger.poll())).toEqual(['booking.updated']);
		await later();
		sim.control.complete(created.id);
		expect(kinds(await trigger.poll())).toEqual(['booking.completed']);

		await later();
		const other = await book(sim, 'intro-call', 1);
		await later();
		sim.control.noShow(other.id);
		await later();
		const third = await book(sim, 'intro-call', 2);
		await later();
		sim.control.cancel(third.id, { by: 'booker' });
		// Several changes between two polls: created+no-show of one booking shows as its last state, oldest first.
		expect(kinds(await trigger.poll())).toEqual(['booking.no_show', 'booking.cancelled']);
		expect(await trigger.poll()).toEqual([]);
	});

	it('a paid booking is created when its payment succeeds, not when it was made', async () => {
		const trigger = poller();
		await later();
		const paid = await book(sim, 'career-coaching');
		expect(paid.status).toBe('awaiting_payment');
		await trigger.poll(); // starts here: the awaiting booking is remembered
		await later();
		expect(await trigger.poll()).toEqual([]);
		sim.control.payment(paid.id, { outcome: 'succeeded' });
		await later();
		const items = await trigger.poll();
		expect(kinds(items)).toEqual(['booking.created']);
		expect(items[0].json.booking).toMatchObject({ id: paid.id, status: 'confirmed' });
	});

	it('only the chosen events and event types start the workflow', async () => {
		const trigger = poller({
			events: ['booking.cancelled'],
			options: {
				eventTypes: { eventType: [{ eventType: { __rl: true, mode: 'id', value: eventTypeId(sim, 'intro-call') } }] },
			},
		});
		await trigger.poll();
		await later();
		const one = await book(sim);
		const two = await book(sim, 'project-sync');
		await later();
		sim.control.cancel(one.id, { by: 'host' });
		sim.control.cancel(two.id, { by: 'host' });
		await later();
		const items = await trigger.poll();
		expect(items.map((item) => (item.json.booking as { id: string }).id)).toEqual([one.id]);
	});

	it('a failing poll (429, 5xx, no answer) throws and moves nothing; the next poll catches up', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const made = await book(sim);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'status', status: 503 });
		await expect(trigger.poll()).rejects.toThrow(/HTTP 503/);
		sim.control.addFault({ method: 'GET', path: '/bookings', count: 1, kind: 'drop' });
		await expect(trigger.poll()).rejects.toThrow(/Could not reach/);
		const items = await trigger.poll();
		expect(items.map((item) => (item.json.booking as { id: string }).id)).toEqual([made.id]);
	});

	it('a backlog of many pages (n8n was down) is reported completely, each change once', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const { ids } = sim.control.generateBookings({ count: 450 });
		sim.control.clearRequests();
		const items = await trigger.poll();
		expect(items).toHaveLength(450);
		expect(new Set(items.map((item) => (item.json.booking as { id: string }).id))).toEqual(new Set(ids));
		expect(requestsTo(sim, '/bookings').length).toBeGreaterThanOrEqual(5); // 100 a page
		expect(await trigger.poll()).toEqual([]);
	});

	it('restart after quiet polls loses and repeats nothing; after an emitting poll, repeats nothing', async () => {
		const trigger = poller({ events: ['booking.cancelled'], options: {} });
		await trigger.poll();
		await later();
		const one = await book(sim); // created: not selected, a quiet poll
		expect(await trigger.poll()).toEqual([]);
		trigger.restart(); // n8n saved the position taken at activation, not the quiet poll's progress...
		await later();
		sim.control.cancel(one.id, { by: 'booker' });
		await later();
		// ...so the trigger asks again from there: the creation is passed over again, the cancel is reported.
		expect((await trigger.poll()).map(bookingId)).toEqual([one.id]);

		await later();
		const two = await book(sim, 'intro-call', 1);
		await later();
		sim.control.cancel(two.id, { by: 'booker' });
		const emitted = await trigger.poll();
		expect(emitted.map(bookingId)).toEqual([two.id]);
		await later();
		const three = await book(sim, 'intro-call', 2);
		expect(await trigger.poll()).toEqual([]); // quiet: saved on the durable scheduler only
		trigger.restart();
		await later();
		sim.control.cancel(three.id, { by: 'host' });
		const afterRestart = await trigger.poll();
		expect(afterRestart.map(bookingId)).toEqual([three.id]);
		expect(trigger.emitted.map((item) => item.json.eventId)).toEqual(
			[...new Set(trigger.emitted.map((item) => item.json.eventId))],
		);
	});

	it('Fetch Test Event returns the latest matching change and leaves the production position alone', async () => {
		const trigger = poller();
		await trigger.poll();
		await later();
		const made = await book(sim);
		const saved = trigger.savedStaticData;

		const [sample] = await trigger.fetchTestEvent();
		expect(sample.json).toMatchObject({ eventType: 'booking.created', booking: { id: made.id } });
		expect(trigger.savedStaticData).toBe(saved);
		expect(kinds(await trigger.poll())).toEqual(['booking.created']);

		const none = poller({
			events: ['booking.no_show'],
			options: { eventTypes: { eventType: [{ eventType: { __rl: true, mode: 'id', value: 'f'.repeat(24) } }] } },
		});
		await expect(none.fetchTestEvent()).rejects.toThrow(/None of the 100 most recently changed bookings matches/);
	});

	it('a copy of the workflow (static data carried along) starts from its own activation', async () => {
		const original = poller();
		await original.poll();
		await later();
		await book(sim);
		expect(await original.poll()).toHaveLength(1);

		const copy = poller(ALL_EVENTS, original.savedStaticData);
		expect(await copy.poll()).toEqual([]);
		await later();
		await book(sim, 'intro-call', 1);
		expect(await copy.poll()).toHaveLength(1);
		expect(await original.poll()).toHaveLength(1);
	});

	it("Start From in the date picker's form is read in the workflow's zone; anything else says which form to use", async () => {
		await later();
		const made = await book(sim);
		const trigger = (startFrom: string) =>
			new PollHarness({
				baseUrl: sim.baseUrl,
				apiKey: sim.apiKeys.readOnly,
				parameters: { events: ['*'], options: { startFrom } },
				timezone: 'Asia/Tokyo',
			});
		// 2026-03-02 08:30 in Tokyo is 2026-03-01T23:30Z: half an hour before the simulated now, and so before the booking.
		const items = await trigger('2026-03-02T08:30:00').poll();
		expect(items.map((item) => (item.json.booking as { id: string }).id)).toContain(made.id);
		await expect(trigger('1 March 2026').poll()).rejects.toThrow(
			"Start From must be a date and time such as 2026-03-01T00:00:00 (the date picker's form, read in the workflow's time zone) or 2026-03-01T00:00:00Z",
		);
	});

	it('Start From backfills a first sync from a chosen time', async () => {
		await later();
		const made = await book(sim);
		const trigger = poller({ events: ['*'], options: { startFrom: '2026-03-01T00:00:00Z' } });
		const items = await trigger.poll();
		expect(items.map((item) => (item.json.booking as { id: string }).id)).toContain(made.id);
		expect(await trigger.poll()).toEqual([]);
	});
});
