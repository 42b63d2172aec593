/** GET /event-types and GET /event-types/{id}/slots. */
import { isoTime } from '../clock.ts';
import { ApiError, notFound } from '../errors.ts';
import { paginate, queryFingerprint, readCursor } from '../paging.ts';
import { MAX_SLOT_RANGE_DAYS, slotDatesTimeZone } from '../policy.ts';
import { eventTypeResource } from '../resources.ts';
import { availableStarts } from '../slots.ts';
import { addDays, daysBetween, instantOf } from '../timezones.ts';
import { Problems, QueryReader, checks, parseDate } from '../validation.ts';
import type { Route } from './route.ts';

export const listEventTypes: Route = {
	operation: 'listEventTypes',
	method: 'GET',
	pattern: '/event-types',
	handle: ({ sim, url }) => {
		const problems = new Problems();
		const query = new QueryReader(problems, url.searchParams);
		const limit = query.limit();
		const active =
			(query.string('active', { check: checks.oneOf(['true', 'false']) }) ?? 'true') === 'true';
		const fingerprint = queryFingerprint({ active });
		const after = readCursor(problems, query.string('cursor'), fingerprint);
		problems.throwIfAny();
		const { store } = sim;
		const matching = store.eventTypes.filter((eventType) => eventType.active === active);
		// "In the order the app shows them": the seeded order; the position is the key.
		const page = paginate(matching, {
			keyOf: (eventType) => [store.eventTypes.indexOf(eventType), 0],
			descending: false,
			after,
			limit,
			fingerprint,
		});
		return {
			status: 200,
			body: {
				items: page.items.map((eventType) => eventTypeResource(store, eventType)),
				nextCursor: page.nextCursor,
			},
		};
	},
};

export const getSlots: Route = {
	operation: 'getSlots',
	method: 'GET',
	pattern: '/event-types/{id}/slots',
	handle: ({ sim, url, pathId }) => {
		const problems = new Problems();
		const query = new QueryReader(problems, url.searchParams);
		const fromText = query.string('from', { required: true, check: checks.date });
		const toText = query.string('to', { required: true, check: checks.date });
		const timeZone = query.string('timezone', { check: checks.timeZone });
		const from = fromText === undefined ? undefined : parseDate(fromText);
		const to = toText === undefined ? undefined : parseDate(toText);
		if (from !== undefined && to !== undefined) {
			const days = daysBetween(from, to) + 1;
			if (days < 1) problems.add('to', 'must not be before from');
			else if (days > MAX_SLOT_RANGE_DAYS)
				problems.add('to', `the range from..to may span at most ${MAX_SLOT_RANGE_DAYS} days`);
		}
		problems.throwIfAny();
		const { store } = sim;
		const eventType = store.eventType(pathId);
		if (eventType === undefined) throw notFound('Event type');
		if (!eventType.active)
			throw new ApiError('event_type_inactive', `Event type ${eventType.id} is not active.`);
		const zone = store.slotDayZone ?? slotDatesTimeZone(timeZone, store.account.timezone);
		// Both dates are present and valid: any problem with them was thrown above.
		const starts = availableStarts(store, {
			eventType,
			fromMs: instantOf(from!, 0, zone),
			toMs: instantOf(addDays(to!, 1), 0, zone),
			nowMs: sim.clock.now(),
		});
		return {
			status: 200,
			body: { slots: starts.map(isoTime), calendarBlocked: !store.calendarReachable },
		};
	},
};
