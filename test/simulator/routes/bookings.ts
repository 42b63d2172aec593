/** GET /bookings, POST /bookings, GET /bookings/{id}, POST /bookings/{id}/cancel. */
import { createHash } from 'node:crypto';
import { ApiError, notFound } from '../errors.ts';
import { cancelBooking, createBooking } from '../lifecycle.ts';
import { BOOKING_STATUSES, IN_FLIGHT_STATUSES, LOCALES } from '../model.ts';
import type { Booker, BookingStatus } from '../model.ts';
import { paginate, queryFingerprint, readCursor } from '../paging.ts';
import type { SortKey } from '../paging.ts';
import {
	API_BOOKING_SOURCE,
	IDEMPOTENCY_KEY_PATTERN,
	IDEMPOTENCY_RETENTION_SECONDS,
	STATUS_FILTER_SEPARATOR,
	withinBounds,
} from '../policy.ts';
import { bookingResource } from '../resources.ts';
import type { BookingRecord } from '../store.ts';
import {
	ObjectReader,
	Problems,
	QueryReader,
	checks,
	parseJsonObjectBody,
	parseUtcDateTime,
} from '../validation.ts';
import type { Route } from './route.ts';

const SORTS = ['-createdAt', 'start', '-start', '-updatedAt'] as const;
type Sort = (typeof SORTS)[number];

const SORT_KEYS: Record<Sort, { keyOf: (booking: BookingRecord) => SortKey; descending: boolean }> =
	{
		'-createdAt': { keyOf: (booking) => [booking.createdAtMs, booking.seq], descending: true },
		start: { keyOf: (booking) => [booking.startMs, booking.seq], descending: false },
		'-start': { keyOf: (booking) => [booking.startMs, booking.seq], descending: true },
		'-updatedAt': { keyOf: (booking) => [booking.updatedAtMs, booking.seq], descending: true },
	};

const checkStatusList = (value: string): string | undefined => {
	const parts = value.split(STATUS_FILTER_SEPARATOR);
	const wrong = parts.filter((part) => !(BOOKING_STATUSES as readonly string[]).includes(part));
	return wrong.length === 0
		? undefined
		: `must be one or more of ${BOOKING_STATUSES.join(', ')}, separated by "${STATUS_FILTER_SEPARATOR}"`;
};

const checkEmail = (value: string): string | undefined =>
	[...value].length > 254 ? 'must be at most 254 characters' : checks.email(value);

export const listBookings: Route = {
	operation: 'listBookings',
	method: 'GET',
	pattern: '/bookings',
	handle: ({ sim, url }) => {
		const problems = new Problems();
		const query = new QueryReader(problems, url.searchParams);
		const limit = query.limit();
		const cursor = query.string('cursor');
		const statusText = query.string('status', { check: checkStatusList });
		const eventTypeId = query.string('eventTypeId', { check: checks.id });
		const email = query.string('email', { check: checkEmail })?.toLowerCase();
		const startFromText = query.string('startFrom', { check: checks.utcDateTime });
		const startToText = query.string('startTo', { check: checks.utcDateTime });
		const updatedSinceText = query.string('updatedSince', { check: checks.utcDateTime });
		const sort = (query.string('sort', { check: checks.oneOf(SORTS) }) ?? '-createdAt') as Sort;
		const startFrom = startFromText === undefined ? undefined : parseUtcDateTime(startFromText);
		const startTo = startToText === undefined ? undefined : parseUtcDateTime(startToText);
		const updatedSince =
			updatedSinceText === undefined ? undefined : parseUtcDateTime(updatedSinceText);
		if (startFrom !== undefined && startTo !== undefined && startTo < startFrom) {
			problems.add('startTo', 'must not be before startFrom');
		}
		// Held and awaiting-payment bookings are left out unless `status` asks for them (contract, GET
		// /bookings).
		const statuses: readonly BookingStatus[] =
			statusText === undefined
				? BOOKING_STATUSES.filter((status) => !IN_FLIGHT_STATUSES.includes(status))
				: (statusText.split(STATUS_FILTER_SEPARATOR) as BookingStatus[]);
		const fingerprint = queryFingerprint({
			statuses,
			eventTypeId,
			email,
			startFrom,
			startTo,
			updatedSince,
			sort,
		});
		const after = readCursor(problems, cursor, fingerprint);
		problems.throwIfAny();
		const { store } = sim;
		const matching = [...store.bookings.values()].filter(
			(booking) =>
				statuses.includes(booking.status) &&
				(eventTypeId === undefined || booking.eventTypeId === eventTypeId) &&
				(email === undefined || booking.booker.email.toLowerCase() === email) &&
				withinBounds(booking.startMs, startFrom, startTo) &&
				withinBounds(booking.updatedAtMs, updatedSince, undefined),
		);
		const page = paginate(matching, { ...SORT_KEYS[sort], after, limit, fingerprint });
		return {
			status: 200,
			body: {
				items: page.items.map((booking) => bookingResource(store, booking)),
				nextCursor: page.nextCursor,
			},
		};
	},
};

/** The fields of POST /bookings' body, in the contract's order. */
interface CreateBookingBody {
	eventTypeId: string;
	start: number;
	booker: Booker;
	notes: string | null;
	notify: boolean;
}

function readCreateBookingBody(
	body: Record<string, unknown>,
	problems: Problems,
): CreateBookingBody | undefined {
	const reader = new ObjectReader(problems, body);
	reader.onlyFields(['eventTypeId', 'start', 'booker', 'notes', 'notify']);
	const eventTypeId = reader.string('eventTypeId', { required: true, check: checks.id });
	const start = reader.string('start', { required: true, check: checks.utcDateTime });
	const booker = reader.object('booker', { required: true });
	booker?.onlyFields(['name', 'email', 'timezone', 'phone', 'locale']);
	const name = booker?.string('name', { required: true, min: 1, max: 120 });
	const email = booker?.string('email', { required: true, max: 254, check: checks.email });
	const timezone = booker?.string('timezone', { required: true, check: checks.timeZone });
	const phone = booker?.string('phone', { max: 40 });
	const locale = booker?.string('locale', { check: checks.oneOf(LOCALES) });
	const notes = reader.string('notes', { max: 2000 });
	const notify = reader.boolean('notify', {});
	if (
		eventTypeId === undefined ||
		start === undefined ||
		name === undefined ||
		email === undefined ||
		timezone === undefined
	) {
		return undefined;
	}
	return {
		eventTypeId,
		start: parseUtcDateTime(start) ?? Number.NaN,
		booker: {
			name,
			email,
			phone: phone ?? null,
			locale: (locale ?? 'en') as Booker['locale'],
			timezone,
		},
		notes: notes ?? null,
		notify: notify ?? true,
	};
}

function headerValue(value: string | string[] | undefined): string | undefined {
	return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Canonical JSON (keys sorted at every level), so key order does not make two equal bodies differ.
 */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(',')}}`;
	}
	return JSON.stringify(value);
}

export const createBookingRoute: Route = {
	operation: 'createBooking',
	method: 'POST',
	pattern: '/bookings',
	handle: ({ sim, headers, rawBody }) => {
		const body = parseJsonObjectBody(headers['content-type'], rawBody);
		const problems = new Problems();
		const fields = readCreateBookingBody(body, problems);
		const idempotencyKey = headerValue(headers['idempotency-key']);
		if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
			problems.add('Idempotency-Key', 'must be 1 to 255 printable characters, such as a UUID');
		}
		problems.throwIfAny();
		// Valid once no problem was recorded.
		const request = fields!;
		const { store } = sim;
		const nowMs = sim.clock.now();
		const fingerprint = createHash('sha256').update(canonical(body)).digest('hex');
		if (idempotencyKey !== undefined) {
			const remembered = store.idempotencyKeys.get(idempotencyKey);
			if (
				remembered !== undefined &&
				nowMs - remembered.storedAtMs < IDEMPOTENCY_RETENTION_SECONDS * 1000
			) {
				if (remembered.fingerprint !== fingerprint) {
					throw new ApiError(
						'idempotency_conflict',
						'This Idempotency-Key was already used with a different request body.',
					);
				}
				const booking = store.bookings.get(remembered.bookingId);
				if (booking !== undefined) return { status: 201, body: bookingResource(store, booking) };
			}
		}
		const eventType = store.eventType(request.eventTypeId);
		if (eventType === undefined) throw notFound('Event type');
		const booking = createBooking(sim, {
			eventType,
			startMs: request.start,
			booker: request.booker,
			notes: request.notes,
			notify: request.notify,
			source: API_BOOKING_SOURCE,
		});
		if (idempotencyKey !== undefined) {
			store.idempotencyKeys.set(idempotencyKey, {
				fingerprint,
				bookingId: booking.id,
				storedAtMs: nowMs,
			});
		}
		return { status: 201, body: bookingResource(store, booking) };
	},
};

export const getBooking: Route = {
	operation: 'getBooking',
	method: 'GET',
	pattern: '/bookings/{id}',
	handle: ({ sim, pathId }) => {
		const booking = sim.store.bookings.get(pathId);
		if (booking === undefined) throw notFound('Booking');
		return { status: 200, body: bookingResource(sim.store, booking) };
	},
};

export const cancelBookingRoute: Route = {
	operation: 'cancelBooking',
	method: 'POST',
	pattern: '/bookings/{id}/cancel',
	handle: ({ sim, headers, rawBody, pathId }) => {
		const body = parseJsonObjectBody(headers['content-type'], rawBody);
		const problems = new Problems();
		const reader = new ObjectReader(problems, body);
		reader.onlyFields(['message']);
		const message = reader.string('message', { max: 1000 });
		problems.throwIfAny();
		const booking = sim.store.bookings.get(pathId);
		if (booking === undefined) throw notFound('Booking');
		// The API key belongs to the host, so a cancellation through the API is the host's.
		cancelBooking(sim, booking, 'host', message ?? null);
		return { status: 200, body: bookingResource(sim.store, booking) };
	},
};
