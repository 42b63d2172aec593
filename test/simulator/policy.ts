/**
 * Every behaviour the contract leaves "not shown", decided in one place so each can be swapped
 * without hunting through the routes. Each entry says what the contract leaves open and what the
 * simulator does; README.md lists them too. The nodes must not depend on any of these.
 */
import type { BookingStatus, EventType, Scope } from './model.ts';
import type { ErrorCode } from './errors.ts';

// not shown in the contract: the status of every code except unauthorized, insufficient_scope,
// not_found, slot_unavailable and rate_limited. The simulator answers 400 for input problems, 409
// for state conflicts and 500 for its own failures.
export const ERROR_STATUS: Record<ErrorCode, number> = {
	validation_failed: 400,
	unauthorized: 401,
	insufficient_scope: 403,
	not_found: 404,
	slot_unavailable: 409,
	rate_limited: 429,
	event_type_inactive: 409,
	booking_state_changed: 409,
	duplicate_booking: 409,
	idempotency_conflict: 409,
	bad_request: 400,
	internal_error: 500,
};

// not shown in the contract: the scope of each operation beyond the capability table. Reading event
// types and availability needs event_types:read; invites count as booking writes.
export const OPERATION_SCOPE = {
	me: null,
	listEventTypes: 'event_types:read',
	getSlots: 'event_types:read',
	listBookings: 'bookings:read',
	getBooking: 'bookings:read',
	createBooking: 'bookings:write',
	cancelBooking: 'bookings:write',
	createInvite: 'bookings:write',
	createWebhook: 'webhooks:manage',
	deleteWebhook: 'webhooks:manage',
} as const satisfies Record<string, Scope | null>;

// not shown in the contract: what a path id that does not match ^[0-9a-f]{24}$ gets. The simulator
// treats it like any other invalid input: 400 validation_failed with details [{ field: 'id', … }].
export const INVALID_PATH_ID_CODE: ErrorCode = 'validation_failed';

// not shown in the contract: whether the scheme name is case-sensitive. RFC 9110 makes auth schemes
// case-insensitive, so `bearer` is accepted; exactly one space must follow it (contract,
// Authentication 1).
export const AUTH_SCHEME_PATTERN = /^bearer (\S+)$/i;

// not shown in the contract: the address in WWW-Authenticate. The simulator names the RFC 9728
// metadata path on its own origin; nothing is served there because the OAuth flow is not live.
export const AUTH_DISCOVERY_PATH = '/.well-known/oauth-protected-resource';

// not shown in the contract: the key format. Keys look like `bsk_` + 40 hex characters.
export const API_KEY_PREFIX = 'bsk_';

// not shown in the contract: the rate-limit budget and its headers. Budget per API key, counted in
// fixed windows on the simulated clock; the only header is Retry-After on a 429.
export const DEFAULT_RATE_LIMIT = { requests: 600, perSeconds: 60 };

// not shown in the contract: a write body that is not valid JSON (with the right content type). The
// simulator answers bad_request, keeping validation_failed for well-formed bodies with wrong
// fields. Bodies over 1 MiB get bad_request too.
export const MAX_BODY_BYTES = 1024 * 1024;

// not shown in the contract: unknown body fields. The simulator rejects them (validation_failed
// naming the field), as a schema with additionalProperties: false would; this catches misspelt
// fields in the nodes. Unknown query parameters are ignored, as most APIs do.
export const REJECT_UNKNOWN_BODY_FIELDS = true;

// not shown in the contract: the accepted `status` values and multi-value syntax of GET /bookings.
// Any of the six statuses, several separated by commas (`status=held,confirmed`); repeating the
// parameter is a validation error.
export const STATUS_FILTER_SEPARATOR = ',';

// not shown in the contract: whether startFrom/startTo/updatedSince are inclusive. All three bounds
// are.
export function withinBounds(
	valueMs: number,
	lowerMs: number | undefined,
	upperMs: number | undefined,
): boolean {
	return (
		(lowerMs === undefined || valueMs >= lowerMs) && (upperMs === undefined || valueMs <= upperMs)
	);
}

// not shown in the contract: the cursor format. An opaque base64url token naming the last item's
// sort key and the query it belongs to (keyset paging, so concurrent inserts neither drop nor
// repeat items). Reusing it with a different query is validation_failed on `cursor`.
export const CURSOR_VERSION = 1;

// not shown in the contract: whether the 31-day slot range counts both ends. The range from `from`
// to `to` inclusive may span at most 31 calendar days (2026-01-01..2026-01-31 is allowed,
// ..2026-02-01 is not).
export const MAX_SLOT_RANGE_DAYS = 31;

// not shown in the contract: the effect of `timezone` on GET /event-types/{id}/slots. It says in
// which time zone the dates `from` and `to` are read (whole local days, `to` included); without it,
// the host's time zone is used.
export function slotDatesTimeZone(requested: string | undefined, hostTimeZone: string): string {
	return requested ?? hostTimeZone;
}

// not shown in the contract: how finely the minimum notice is measured. From the start of the
// current minute: a slot offered now stays bookable for the rest of the minute, so a client that
// reads slots and books one at once does not lose it to the clock's milliseconds.
export const NOTICE_GRANULARITY_MS = 60_000;

// not shown in the contract: the initial status of a booking made with POST /bookings. Free types
// and pay-on-arrival types start `confirmed` (booking.created emitted now unless notify is false);
// types paid online start `awaiting_payment` with payment.status `unpaid`, and booking.created
// follows when the payment succeeds. A pay-on-arrival booking keeps payment.status `unpaid`, so
// cancelling it refunds nothing.
export function initialStatus(eventType: Pick<EventType, 'price' | 'payOnArrival'>): BookingStatus {
	return eventType.price !== null && !eventType.payOnArrival ? 'awaiting_payment' : 'confirmed';
}

// not shown in the contract: the source of an API booking. "A booking made through the API is
// identical to one added by hand in the app", so it is `manual`.
export const API_BOOKING_SOURCE = 'manual';

// not shown in the contract: which states can be cancelled. The live ones; `completed` and
// `no_show` answer 409 booking_state_changed. An already cancelled booking is returned unchanged
// (shown).
export const CANCELLABLE_STATUSES: readonly BookingStatus[] = [
	'held',
	'awaiting_payment',
	'confirmed',
];

// not shown in the contract: the source states of reschedule and no-show. Only confirmed bookings
// move; confirmed and completed ones can be marked no-show. Others answer 409
// booking_state_changed.
export const RESCHEDULABLE_STATUSES: readonly BookingStatus[] = ['confirmed'];
export const NO_SHOW_STATUSES: readonly BookingStatus[] = ['confirmed', 'completed'];

// not shown in the contract: the names of the previous-time fields of booking.rescheduled. The
// simulator sends `data.previous: { start, end }` beside `data.booking`.
export const PREVIOUS_TIME_FIELD = 'previous';

// not shown in the contract: when duplicate_booking applies. A second live booking (held,
// awaiting_payment or confirmed) for the same booker email, event type and start, made without
// reusing an Idempotency-Key.
export const DUPLICATE_BOOKING_STATUSES: readonly BookingStatus[] = [
	'held',
	'awaiting_payment',
	'confirmed',
];

// not shown in the contract: idempotency-key rules. Keys are per account, 1 to 255 printable
// characters (a UUID is recommended, not enforced), kept for 24 hours of simulated time, and only
// successful creations are remembered. The same key with a different body (compared as parsed JSON)
// is 409 idempotency_conflict.
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

// not shown in the contract: the webhook subscription limit's error. 400 bad_request ("at most 25
// …"); disabled subscriptions count towards the limit.
export const MAX_WEBHOOK_SUBSCRIPTIONS = 25;

// not shown in the contract: DELETE /webhooks/{id}'s response. 204 with no body; an unknown or
// already deleted id is 404 not_found.
export const DELETE_WEBHOOK_STATUS = 204;

// not shown in the contract: `createdVia` values. Subscriptions made with POST /webhooks say `api`.
export const WEBHOOK_CREATED_VIA = 'api';

// not shown in the contract: the signing secret's format. `whsec_` + 48 hex characters; the HMAC
// key is the whole string as UTF-8.
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

// not shown in the contract: back-off timing and number of attempts. Ten attempts (one plus nine
// retries) after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, then three times 24 h: about 3.9 days in
// all, so one failing event alone can meet the 20-failures-over-3-days disable rule only together
// with others.
export const DEFAULT_RETRY_DELAYS_SECONDS: readonly number[] = [
	60, 300, 1800, 7200, 21600, 43200, 86400, 86400, 86400,
];

// Shown in the contract, kept here beside the choices that depend on them.
export const MAX_API_KEYS = 10;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const DISABLE_AFTER_FAILURES = 20;
export const DISABLE_AFTER_SPAN_SECONDS = 3 * 24 * 60 * 60;

/** The seed when none is given: runs without options are reproducible too. */
export const DEFAULT_SEED = 1;
