/**
 * What the nodes assume of the Booking Service API, in one place: every operation they call, the query parameters,
 * headers and body fields they send (with the limits they check before sending), the answers they read, the webhook
 * deliveries the trigger understands and the error codes they explain. `npm run contract` compares a service's
 * published OpenAPI document with it (compare.ts); assumptions.test.ts runs the nodes against the simulator and fails
 * when they send anything not stated here, state something they never send, or offer option values other than these.
 */
import type { Field } from './shapes.ts';
import {
	ACCOUNT,
	ALL_EVENTS,
	BOOKING,
	BOOKING_STATUSES,
	EVENT_KINDS,
	EVENT_TYPE,
	ID_PATTERN,
	INVITE_LINK,
	LOCALES,
	page,
	SLOTS,
	WEBHOOK_SUBSCRIPTION,
	field,
} from './shapes.ts';

export type { Field } from './shapes.ts';
export { ALL_EVENTS, BOOKING_STATUSES, EVENT_KINDS, ID_PATTERN, LOCALES, LOCATION_KINDS, SCOPES } from './shapes.ts';

export interface Operation {
	/** Which nodes send it. */
	usedBy: string;
	/** The scope the nodes tell users it needs (in a 403's explanation and the docs); null: any key. */
	scope: string | null;
	/** Path parameters (`{id}`). */
	path?: Record<string, Field>;
	query?: Record<string, Field>;
	headers?: Record<string, Field>;
	/** The JSON body's fields. */
	body?: Record<string, Field>;
	/** What the nodes read of a successful answer; absent when they read nothing (any 2xx will do). */
	response?: Field;
}

const { string, integer, boolean, utc } = field;
const id = (extra: Omit<Field, 'type'> = {}): Field => string({ pattern: ID_PATTERN, ...extra });
const PAGE_QUERY = {
	limit: { type: 'integer', minimum: 1, maximum: 100 },
	cursor: string(),
} satisfies Record<string, Field>;

export const BOOKING_SORTS = ['-createdAt', 'start', '-start', '-updatedAt'];

/** Keyed `METHOD /path`, paths relative to the base URL (which includes /v1). */
export const OPERATIONS: Record<string, Operation> = {
	'GET /me': {
		usedBy: 'Account → Get; the credential test; the webhook trigger (which account a subscription belongs to)',
		scope: null,
		response: ACCOUNT,
	},
	'GET /event-types': {
		usedBy: 'Event Type → Get Many; the event type lists of the action node and both triggers',
		scope: 'event_types:read',
		query: { ...PAGE_QUERY, active: string({ enum: ['true', 'false'] }) },
		response: page(EVENT_TYPE),
	},
	'GET /event-types/{id}/slots': {
		usedBy: 'Event Type → Get Available Slots',
		scope: 'event_types:read',
		path: { id: id() },
		query: {
			from: string({ format: 'date', required: true }),
			to: string({ format: 'date', required: true }),
			timezone: string({ required: true }),
		},
		response: SLOTS,
	},
	'GET /bookings': {
		usedBy: 'Booking → Get Many; the booking list; the polling trigger; the webhook trigger after a key rotation, when unverified requests have spent its look-ups (updatedSince, sort -updatedAt, one page)',
		scope: 'bookings:read',
		query: {
			...PAGE_QUERY,
			// One status per request: how to ask for several is not shown, so the node merges one listing per status.
			status: string({ enum: BOOKING_STATUSES }),
			eventTypeId: id(),
			email: string({ format: 'email', maxLength: 254 }),
			startFrom: utc(),
			startTo: utc(),
			updatedSince: utc(),
			sort: string({ enum: BOOKING_SORTS }),
		},
		response: page(BOOKING),
	},
	'POST /bookings': {
		usedBy: 'Booking → Create',
		scope: 'bookings:write',
		// Always a UUID: the user's key, or one derived per item and execution (text is turned into a UUID).
		headers: { 'Idempotency-Key': string({ required: true, format: 'uuid' }) },
		body: {
			eventTypeId: id({ required: true }),
			start: utc({ required: true }),
			booker: field.object(
				{
					name: string({ required: true, minLength: 1, maxLength: 120 }),
					email: string({ required: true, format: 'email', maxLength: 254 }),
					timezone: string({ required: true }),
					phone: string({ maxLength: 40 }),
					locale: string({ enum: LOCALES }),
				},
				{ required: true },
			),
			notes: string({ maxLength: 2000 }),
			notify: boolean,
		},
		response: BOOKING,
	},
	'GET /bookings/{id}': {
		usedBy: 'Booking → Get; the webhook trigger (to confirm a delivery it cannot verify after a key rotation)',
		scope: 'bookings:read',
		path: { id: id() },
		response: BOOKING,
	},
	'POST /bookings/{id}/cancel': {
		usedBy: 'Booking → Cancel',
		scope: 'bookings:write',
		path: { id: id() },
		body: { message: string({ maxLength: 1000 }) },
		response: BOOKING,
	},
	'POST /invites': {
		usedBy: 'Invite → Create',
		scope: 'bookings:write',
		body: {
			eventTypeId: id({ required: true }),
			name: string({ maxLength: 120 }),
			email: string({ format: 'email', maxLength: 254 }),
			expiresInDays: { ...integer, minimum: 1, maximum: 90 },
		},
		response: INVITE_LINK,
	},
	'POST /webhooks': {
		usedBy: 'Webhook Subscription → Create; the webhook trigger on activation (it keeps id, createdAt and the sealed secret)',
		scope: 'webhooks:manage',
		body: {
			url: string({ required: true, format: 'uri', maxLength: 2000 }),
			events: {
				type: 'array',
				required: true,
				minItems: 1,
				items: string({ enum: [ALL_EVENTS, ...EVENT_KINDS] }),
			},
			description: string({ maxLength: 200 }),
		},
		response: WEBHOOK_SUBSCRIPTION,
	},
	'DELETE /webhooks/{id}': {
		usedBy: 'Webhook Subscription → Delete; the webhook trigger on deactivation',
		scope: 'webhooks:manage',
		path: { id: id() },
	},
};

/** A delivery as the webhook trigger reads it: it verifies the signature header and outputs these fields. */
export const WEBHOOKS = {
	/** The event kinds the triggers offer (besides "All Events"). */
	kinds: EVENT_KINDS,
	headers: { 'Service-Signature': string({ required: true }) } as Record<string, Field>,
	// Include Full Envelope outputs the whole body; `data`'s fields are always copied into the item.
	body: field.object({
		id: string(),
		type: string(),
		createdAt: utc(),
		apiVersion: string(),
		data: field.object({ booking: BOOKING }),
	}),
};

/**
 * The error envelope `{ error: { code, message, details? } }` and the codes the nodes explain in their own words.
 * Any other code still reaches the user, with the service's message and the code.
 */
export const ERRORS = {
	envelope: field.object(
		{
			error: field.object(
				// `details` names the refused fields of validation_failed; its shape is not shown, so any JSON is read.
				{ code: string(), message: string(), details: { type: ['array', 'object', 'string', 'number', 'boolean'] } },
				{ passThrough: false },
			),
		},
		{ passThrough: false },
	),
	/** Told apart by code. */
	explainedCodes: [
		'validation_failed',
		'unauthorized',
		'insufficient_scope',
		'not_found',
		'slot_unavailable',
		'event_type_inactive',
		'booking_state_changed',
		'duplicate_booking',
		'idempotency_conflict',
	],
	/** Told apart by HTTP status: 429 is waited out (Retry-After) and retried, 5xx is "the service failed". */
	byStatus: { rate_limited: 429, internal_error: 500 } as Record<string, number>,
	/** Read on 429 to know how long to wait. */
	rateLimitHeader: 'Retry-After',
};
