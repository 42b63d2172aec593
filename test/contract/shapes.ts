// The service's objects as the nodes read them, for assumptions.ts. Plain data with no imports, so that
// `npm run contract` runs on bare Node; assumptions.test.ts checks it against the nodes.

export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

export interface Field {
	/** Several for a value of either type (an answer's value: string or boolean). */
	type: FieldType | readonly FieldType[];
	/** Requests: the nodes always send it. */
	required?: boolean;
	/** Responses: the nodes accept null here. */
	nullable?: boolean;
	enum?: readonly string[];
	/** Checked by the nodes before sending, so a service that changes it refuses what the nodes let through. */
	pattern?: string;
	format?: 'date-time' | 'date' | 'email' | 'uri' | 'uuid';
	minimum?: number;
	maximum?: number;
	minLength?: number;
	maxLength?: number;
	minItems?: number;
	maxItems?: number;
	items?: Field;
	properties?: Record<string, Field>;
	/**
	 * Response objects: the node outputs the object as the service sent it, so a field added later reaches users by
	 * itself. Without it the output is built from the listed fields, and a new required field would be missed.
	 */
	passThrough?: boolean;
}

export const BOOKING_STATUSES = ['held', 'awaiting_payment', 'confirmed', 'cancelled', 'completed', 'no_show'];
export const EVENT_KINDS = ['booking.created', 'booking.rescheduled', 'booking.cancelled', 'booking.no_show'];
/** Subscribes to every kind, including kinds added later. */
export const ALL_EVENTS = '*';
export const LOCALES = ['en', 'ja'];
export const LOCATION_KINDS = ['google_meet', 'teams', 'phone', 'in_person', 'custom'];
export const SCOPES = ['event_types:read', 'bookings:read', 'bookings:write', 'webhooks:manage'];
export const ID_PATTERN = '^[0-9a-f]{24}$';

const string = (extra: Omit<Field, 'type'> = {}): Field => ({ type: 'string', ...extra });
const nullableString: Field = string({ nullable: true });
const integer: Field = { type: 'integer' };
const boolean: Field = { type: 'boolean' };
const utc = (extra: Omit<Field, 'type'> = {}): Field => string({ format: 'date-time', ...extra });
const object = (properties: Record<string, Field>, extra: Omit<Field, 'type' | 'properties'> = {}): Field => ({
	type: 'object',
	properties,
	passThrough: true,
	...extra,
});
const array = (items: Field): Field => ({ type: 'array', items });

/** `nameI18n`, `labelI18n`, a custom location's text: the nodes pick `en` or `ja` (Name Language). */
export const LOCALIZED_TEXT = object(Object.fromEntries(LOCALES.map((locale) => [locale, string()])));

export const ACCOUNT = object({
	id: string(),
	name: string(),
	email: string(),
	handle: nullableString,
	locale: string({ enum: LOCALES }),
	timezone: string(),
	bookingPageUrl: nullableString,
	plan: string({ enum: ['free', 'standard'] }),
	scopes: array(string({ enum: SCOPES })),
});

export const EVENT_TYPE = object({
	id: string(),
	name: string(),
	nameI18n: LOCALIZED_TEXT,
	description: nullableString,
	slug: string(),
	durationMinutes: integer,
	visibility: string({ enum: ['public', 'invite_only'] }),
	active: boolean,
	bookingUrl: nullableString,
	price: object({ amount: integer, currency: string() }, { nullable: true }),
	payOnArrival: boolean,
	// The contract does not show its values; the nodes only pass it on.
	locationKind: string(),
	createdAt: utc(),
	updatedAt: utc(),
});

export const BOOKING = object({
	id: string(),
	status: string({ enum: BOOKING_STATUSES }),
	start: utc(),
	end: utc(),
	hostTimezone: string(),
	eventType: object({ id: string(), name: string(), nameI18n: LOCALIZED_TEXT, slug: string() }),
	booker: object({
		name: string(),
		email: string(),
		phone: nullableString,
		locale: string({ enum: LOCALES }),
		timezone: string(),
	}),
	answers: array(
		object({
			questionId: string(),
			label: string(),
			labelI18n: LOCALIZED_TEXT,
			value: { type: ['string', 'boolean'] },
		}),
	),
	bookerNotes: nullableString,
	location: object({
		kind: string({ enum: LOCATION_KINDS }),
		direction: string({ enum: ['host_calls', 'booker_calls'] }),
		hostPhone: string(),
		address: string(),
		text: LOCALIZED_TEXT,
	}),
	joinUrl: nullableString,
	source: string({ enum: ['public', 'manual', 'reschedule'] }),
	payment: object(
		{
			amount: integer,
			currency: string(),
			status: string({ enum: ['unpaid', 'paid', 'refunded', 'partially_refunded', 'failed'] }),
			refundedAmount: integer,
			receiptUrl: nullableString,
		},
		{ nullable: true },
	),
	cancellation: object(
		{ by: string({ enum: ['booker', 'host', 'system'] }), reason: nullableString, at: utc() },
		{ nullable: true },
	),
	manageUrl: string(),
	createdAt: utc(),
	updatedAt: utc(),
});

/** `{ items, nextCursor }`: the nodes output the items, never the page. */
export const page = (item: Field): Field =>
	object({ items: array(item), nextCursor: nullableString }, { passThrough: false });

export const SLOTS = object(
	{ slots: array(utc()), calendarBlocked: boolean },
	{ passThrough: false },
);

export const INVITE_LINK = object({
	id: string(),
	eventTypeId: string(),
	url: nullableString,
	name: nullableString,
	email: nullableString,
	expiresAt: utc(),
	usedAt: utc({ nullable: true }),
	bookingId: nullableString,
	createdAt: utc(),
});

export const WEBHOOK_SUBSCRIPTION = object({
	id: string(),
	url: string(),
	events: array(string()),
	description: nullableString,
	status: string({ enum: ['active', 'disabled'] }),
	createdVia: string(),
	lastSuccessAt: utc({ nullable: true }),
	consecutiveFailures: integer,
	// The webhook trigger confirms, after a key rotation, only changes made since then (n8n's clock if it is missing).
	createdAt: utc(),
	// The trigger seals it at once; the action node's output is the only place it ever appears.
	secret: string(),
});

export const field = { string, integer, boolean, utc, object, array };
