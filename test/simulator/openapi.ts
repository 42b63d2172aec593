/**
 * GET /v1/openapi.json (contract, Versioning 3): OpenAPI 3.1, document version 1.0.0, public,
 * describing the shown operations and the four webhook payloads. Objects are closed
 * (`additionalProperties: false`) because the contract says "no other fields appear"; the
 * conformance tests validate every response against this document, so it and the simulator cannot
 * drift apart silently.
 */
import {
	BOOKING_STATUSES,
	EVENT_KINDS,
	LOCALES,
	LOCATION_KINDS,
	SUBSCRIBABLE_EVENTS,
} from './model.ts';
import { DELETE_WEBHOOK_STATUS, PREVIOUS_TIME_FIELD, STATUS_FILTER_SEPARATOR } from './policy.ts';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const integer = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
const timestamp = (description?: string): Schema =>
	string({
		format: 'date-time',
		pattern: 'Z$',
		...(description === undefined ? {} : { description }),
	});

/** A closed object: every listed property required unless named in `optional`. */
function object(properties: Record<string, Schema>, optional: string[] = []): Schema {
	return {
		type: 'object',
		additionalProperties: false,
		required: Object.keys(properties).filter((name) => !optional.includes(name)),
		properties,
	};
}

const ID = string({ pattern: '^[0-9a-f]{24}$' });
const EMAIL = string({ format: 'email', maxLength: 254 });

const localizedText = {
	type: 'object',
	additionalProperties: false,
	properties: { en: string({ maxLength: 2000 }), ja: string({ maxLength: 2000 }) },
};

const schemas: Record<string, Schema> = {
	LocalizedText: localizedText,
	Account: object({
		id: string(),
		name: string(),
		email: string(),
		handle: nullable(string()),
		locale: string({ enum: LOCALES }),
		timezone: string({ description: 'IANA time zone name' }),
		bookingPageUrl: nullable(string()),
		plan: string({ enum: ['free', 'standard'] }),
		scopes: {
			type: 'array',
			items: string({
				enum: ['event_types:read', 'bookings:read', 'bookings:write', 'webhooks:manage'],
			}),
		},
	}),
	Price: object({
		amount: integer({ description: 'minor units of the currency' }),
		currency: string({ minLength: 3, maxLength: 3 }),
	}),
	EventType: object({
		id: string(),
		name: string({ description: 'nameI18n resolved to a plain string' }),
		nameI18n: ref('LocalizedText'),
		description: nullable(string()),
		slug: string(),
		durationMinutes: integer(),
		visibility: string({ enum: ['public', 'invite_only'] }),
		active: { type: 'boolean' },
		bookingUrl: nullable(string()),
		price: { oneOf: [ref('Price'), { type: 'null' }] },
		payOnArrival: { type: 'boolean' },
		locationKind: string({
			enum: LOCATION_KINDS,
			description: 'values not shown in the contract (simulator: the kinds of a booking location)',
		}),
		createdAt: timestamp(),
		updatedAt: timestamp(),
	}),
	EventTypePage: object({
		items: { type: 'array', items: ref('EventType') },
		nextCursor: nullable(string()),
	}),
	Slots: object({
		slots: { type: 'array', items: timestamp() },
		calendarBlocked: {
			type: 'boolean',
			description:
				'true when the connected calendar could not be reached: the list may be optimistic',
		},
	}),
	Location: {
		oneOf: [
			ref('GoogleMeetLocation'),
			ref('TeamsLocation'),
			ref('PhoneLocation'),
			ref('InPersonLocation'),
			ref('CustomLocation'),
		],
		discriminator: {
			propertyName: 'kind',
			mapping: {
				google_meet: '#/components/schemas/GoogleMeetLocation',
				teams: '#/components/schemas/TeamsLocation',
				phone: '#/components/schemas/PhoneLocation',
				in_person: '#/components/schemas/InPersonLocation',
				custom: '#/components/schemas/CustomLocation',
			},
		},
	},
	GoogleMeetLocation: object({ kind: string({ const: 'google_meet' }) }),
	TeamsLocation: object({ kind: string({ const: 'teams' }) }),
	PhoneLocation: object(
		{
			kind: string({ const: 'phone' }),
			direction: string({ enum: ['host_calls', 'booker_calls'] }),
			hostPhone: string({ maxLength: 40 }),
		},
		['hostPhone'],
	),
	InPersonLocation: object({
		kind: string({ const: 'in_person' }),
		address: string({ minLength: 1, maxLength: 500 }),
	}),
	CustomLocation: object({ kind: string({ const: 'custom' }), text: ref('LocalizedText') }),
	Booker: object({
		name: string(),
		email: string(),
		phone: nullable(string()),
		locale: string({ enum: LOCALES }),
		timezone: string(),
	}),
	Answer: object({
		questionId: string(),
		label: string(),
		labelI18n: ref('LocalizedText'),
		value: { type: ['string', 'boolean'] },
	}),
	Payment: object({
		amount: integer(),
		currency: string(),
		status: string({ enum: ['unpaid', 'paid', 'refunded', 'partially_refunded', 'failed'] }),
		refundedAmount: integer(),
		receiptUrl: nullable(string()),
	}),
	Cancellation: object({
		by: string({ enum: ['booker', 'host', 'system'] }),
		reason: nullable(string()),
		at: timestamp(),
	}),
	Booking: object({
		id: string(),
		status: string({ enum: BOOKING_STATUSES }),
		start: timestamp(),
		end: timestamp(),
		hostTimezone: string(),
		eventType: object({
			id: string(),
			name: string(),
			nameI18n: ref('LocalizedText'),
			slug: string(),
		}),
		booker: ref('Booker'),
		answers: { type: 'array', items: ref('Answer') },
		bookerNotes: nullable(string()),
		location: ref('Location'),
		joinUrl: nullable(string()),
		source: string({ enum: ['public', 'manual', 'reschedule'] }),
		payment: { oneOf: [ref('Payment'), { type: 'null' }] },
		cancellation: { oneOf: [ref('Cancellation'), { type: 'null' }] },
		manageUrl: string(),
		createdAt: timestamp(),
		updatedAt: timestamp(),
	}),
	BookingPage: object({
		items: { type: 'array', items: ref('Booking') },
		nextCursor: nullable(string()),
	}),
	CreateBookingRequest: object(
		{
			eventTypeId: ID,
			start: timestamp(),
			booker: object(
				{
					name: string({ minLength: 1, maxLength: 120 }),
					email: EMAIL,
					timezone: string({ description: 'IANA time zone name' }),
					phone: string({ maxLength: 40 }),
					locale: string({ enum: LOCALES, default: 'en' }),
				},
				['phone', 'locale'],
			),
			notes: string({ maxLength: 2000 }),
			notify: { type: 'boolean', default: true },
		},
		['notes', 'notify'],
	),
	CancelBookingRequest: object({ message: string({ maxLength: 1000 }) }, ['message']),
	InviteLink: object({
		id: string(),
		eventTypeId: string(),
		url: nullable(string({ description: 'returned in the creation response only' })),
		name: nullable(string()),
		email: nullable(string()),
		expiresAt: timestamp(),
		usedAt: nullable(timestamp()),
		bookingId: nullable(string()),
		createdAt: timestamp(),
	}),
	CreateInviteRequest: object(
		{
			eventTypeId: ID,
			name: string({ maxLength: 120 }),
			email: EMAIL,
			expiresInDays: integer({ minimum: 1, maximum: 90, default: 14 }),
		},
		['name', 'email', 'expiresInDays'],
	),
	WebhookSubscriptionCreated: object({
		id: string(),
		url: string(),
		events: { type: 'array', items: string() },
		description: nullable(string()),
		status: string({ enum: ['active', 'disabled'] }),
		createdVia: string(),
		lastSuccessAt: nullable(timestamp()),
		consecutiveFailures: integer(),
		createdAt: timestamp(),
		secret: string({ description: 'signing secret, returned only at creation' }),
	}),
	CreateWebhookRequest: object(
		{
			url: string({
				format: 'uri',
				maxLength: 2000,
				description: 'must be https and resolve to a public address',
			}),
			events: {
				type: 'array',
				minItems: 1,
				maxItems: 20,
				items: string({ enum: SUBSCRIBABLE_EVENTS }),
			},
			description: string({ maxLength: 200 }),
		},
		['description'],
	),
	Error: object({
		error: object({ code: string(), message: string(), details: {} }, ['details']),
	}),
	...Object.fromEntries(EVENT_KINDS.map((kind) => [eventSchemaName(kind), eventSchema(kind)])),
};

function eventSchemaName(kind: string): string {
	const words = kind.replace('.', '_').split('_');
	return `${words.map((word) => word[0].toUpperCase() + word.slice(1)).join('')}Event`;
}

function eventSchema(kind: string): Schema {
	const data: Record<string, Schema> = { booking: ref('Booking') };
	if (kind === 'booking.rescheduled')
		data[PREVIOUS_TIME_FIELD] = {
			...object({ start: timestamp(), end: timestamp() }),
			description: 'the previous time (simulator: the contract does not show these fields\' names)',
		};
	return object({
		id: string({ pattern: '^evt_' }),
		type: string({ const: kind }),
		createdAt: timestamp(),
		apiVersion: string({ const: 'v1' }),
		data: object(data),
	});
}

const ERROR_STATUSES = ['400', '401', '403', '404', '409', '429'];

const responses: Record<string, Schema> = Object.fromEntries(
	ERROR_STATUSES.map((status) => [
		`Error${status}`,
		{
			description: `Error (${status})`,
			...(status === '401'
				? {
						headers: {
							'WWW-Authenticate': {
								schema: string({ description: 'Bearer resource_metadata="…"' }),
							},
						},
					}
				: status === '429'
					? {
							headers: {
								'Retry-After': {
									schema: integer(),
									description: 'seconds to wait (simulator: the contract does not show the rate limit headers)',
								},
							},
						}
					: {}),
			content: { 'application/json': { schema: ref('Error') } },
		},
	]),
);

function json(schema: Schema, description: string): Schema {
	return { description, content: { 'application/json': { schema } } };
}

function operation(spec: {
	id: string;
	summary: string;
	scope: string | null;
	parameters?: Schema[];
	body?: string;
	success: Record<string, Schema>;
}): Schema {
	return {
		operationId: spec.id,
		summary: spec.summary,
		...(spec.scope === null ? {} : { 'x-required-scope': spec.scope }),
		...(spec.parameters === undefined ? {} : { parameters: spec.parameters }),
		...(spec.body === undefined
			? {}
			: {
					requestBody: {
						required: true,
						content: { 'application/json': { schema: ref(spec.body) } },
					},
				}),
		responses: {
			...spec.success,
			...Object.fromEntries(
				ERROR_STATUSES.map((status) => [status, { $ref: `#/components/responses/Error${status}` }]),
			),
		},
	};
}

const pathId = { name: 'id', in: 'path', required: true, schema: ID };
const query = (name: string, schema: Schema, description?: string, required = false): Schema => ({
	name,
	in: 'query',
	required,
	schema,
	...(description === undefined ? {} : { description }),
});
const pageParameters = [
	query('limit', integer({ minimum: 1, maximum: 100, default: 50 })),
	query('cursor', string(), 'nextCursor of the previous page'),
];

const paths = {
	'/me': {
		get: operation({
			id: 'getAccount',
			summary: 'The account for the key, with its scopes',
			scope: null,
			success: { '200': json(ref('Account'), 'The account') },
		}),
	},
	'/event-types': {
		get: operation({
			id: 'listEventTypes',
			summary: 'Event types in the order the app shows them',
			scope: 'event_types:read',
			parameters: [
				...pageParameters,
				query('active', string({ enum: ['true', 'false'], default: 'true' })),
			],
			success: { '200': json(ref('EventTypePage'), 'A page of event types') },
		}),
	},
	'/event-types/{id}/slots': {
		get: operation({
			id: 'getSlots',
			summary: 'Available start times of one event type',
			scope: 'event_types:read',
			parameters: [
				pathId,
				query(
					'from',
					string({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
					undefined,
					true,
				),
				query(
					'to',
					string({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
					'the range from `from` to `to` spans at most 31 days, both counted (simulator: 2026-01-01..2026-01-31 is allowed, ..02-01 is not)',
					true,
				),
				query('timezone', string(), 'IANA name in which from and to are read (simulator)'),
			],
			success: { '200': json(ref('Slots'), 'Available start times') },
		}),
	},
	'/bookings': {
		get: operation({
			id: 'listBookings',
			summary: 'Bookings, newest first by default',
			scope: 'bookings:read',
			parameters: [
				...pageParameters,
				query(
					'status',
					string(),
					`one or more of ${BOOKING_STATUSES.join(', ')} separated by "${STATUS_FILTER_SEPARATOR}" (simulator); held and awaiting_payment are excluded unless listed`,
				),
				query('eventTypeId', ID),
				query('email', EMAIL),
				query('startFrom', timestamp()),
				query('startTo', timestamp()),
				query('updatedSince', timestamp()),
				query(
					'sort',
					string({ enum: ['-createdAt', 'start', '-start', '-updatedAt'], default: '-createdAt' }),
				),
			],
			success: { '200': json(ref('BookingPage'), 'A page of bookings') },
		}),
		post: operation({
			id: 'createBooking',
			summary: 'Create a booking on behalf of a customer',
			scope: 'bookings:write',
			parameters: [
				{
					name: 'Idempotency-Key',
					in: 'header',
					required: false,
					schema: string({ maxLength: 255 }),
					description:
						'a client-chosen UUID; repeating the request with it returns the same booking (simulator: any 1 to 255 printable characters)',
				},
			],
			body: 'CreateBookingRequest',
			success: { '201': json(ref('Booking'), 'The booking') },
		}),
	},
	'/bookings/{id}': {
		get: operation({
			id: 'getBooking',
			summary: 'One booking',
			scope: 'bookings:read',
			parameters: [pathId],
			success: { '200': json(ref('Booking'), 'The booking') },
		}),
	},
	'/bookings/{id}/cancel': {
		post: operation({
			id: 'cancelBooking',
			summary: 'Cancel a booking (idempotent)',
			scope: 'bookings:write',
			parameters: [pathId],
			body: 'CancelBookingRequest',
			success: { '200': json(ref('Booking'), 'The cancelled booking') },
		}),
	},
	'/invites': {
		post: operation({
			id: 'createInvite',
			summary: 'Create a single-use booking link',
			scope: 'bookings:write',
			body: 'CreateInviteRequest',
			success: { '201': json(ref('InviteLink'), 'The invite link, with its url') },
		}),
	},
	'/webhooks': {
		post: operation({
			id: 'createWebhook',
			summary: 'Subscribe an endpoint to events',
			scope: 'webhooks:manage',
			body: 'CreateWebhookRequest',
			success: {
				'201': {
					...json(
						ref('WebhookSubscriptionCreated'),
						'The subscription, with its secret (shown only here)',
					),
					headers: { Location: { schema: string() } },
				},
			},
		}),
	},
	'/webhooks/{id}': {
		delete: operation({
			id: 'deleteWebhook',
			summary: 'Delete a subscription, effective immediately',
			scope: 'webhooks:manage',
			parameters: [pathId],
			success: { [String(DELETE_WEBHOOK_STATUS)]: { description: 'Deleted (simulator: no body)' } },
		}),
	},
};

const deliveryHeaders = [
	{
		name: 'User-Agent',
		in: 'header',
		required: true,
		schema: string({ const: 'Service-Webhooks/1' }),
	},
	{
		name: 'Service-Event-Id',
		in: 'header',
		required: true,
		schema: string(),
		description: 'stable across retries',
	},
	{
		name: 'Service-Event-Type',
		in: 'header',
		required: true,
		schema: string({ enum: EVENT_KINDS }),
	},
	{
		name: 'Service-Signature',
		in: 'header',
		required: true,
		schema: string({ pattern: '^t=\\d+,v1=[0-9a-f]{64}$' }),
		description: 'HMAC-SHA256 of "<t>.<raw body>" keyed by the subscription secret',
	},
];

const webhooks = Object.fromEntries(
	EVENT_KINDS.map((kind) => [
		kind,
		{
			post: {
				operationId: `on${eventSchemaName(kind)}`,
				parameters: deliveryHeaders,
				requestBody: {
					required: true,
					content: { 'application/json': { schema: ref(eventSchemaName(kind)) } },
				},
				responses: {
					'2XX': {
						description:
							'Received. Any other answer, or none within 10 s, is a failure; 410 deletes the subscription.',
					},
				},
			},
		},
	]),
);

export function openApiDocument(baseUrl: string): Schema {
	return {
		openapi: '3.1.0',
		info: {
			title: 'Booking Service API',
			version: '1.0.0',
			description:
				'Served by the Booking Service simulator. Choices the contract leaves open are marked "(simulator)", and so is every x-required-scope (the contract shows the scopes of the two key choices, not of each operation).',
		},
		servers: [{ url: baseUrl }],
		security: [{ bearerAuth: [] }],
		paths,
		webhooks,
		components: {
			securitySchemes: {
				bearerAuth: {
					type: 'http',
					scheme: 'bearer',
					description: 'Authorization: Bearer <API_KEY>',
				},
			},
			schemas,
			responses,
		},
	};
}
