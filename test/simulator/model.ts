/**
 * The public resource shapes, field for field as the contract's "Resources and their fields" lists
 * them. Responses are built only through `resources.ts` from these types, which is what keeps extra
 * fields out.
 */

export type Locale = 'en' | 'ja';
export const LOCALES: readonly Locale[] = ['en', 'ja'];

/**
 * `nameI18n`, `labelI18n` and the custom location text: optional `en` and `ja`, each at most 2000
 * characters.
 */
export interface LocalizedText {
	en?: string;
	ja?: string;
}

export type Scope = 'event_types:read' | 'bookings:read' | 'bookings:write' | 'webhooks:manage';

/** The two permission choices of an API key (contract, Authentication 4). */
export type KeyChoice = 'readOnly' | 'readWrite';
export const SCOPES_OF_CHOICE: Record<KeyChoice, readonly Scope[]> = {
	readOnly: ['event_types:read', 'bookings:read'],
	readWrite: ['event_types:read', 'bookings:read', 'bookings:write', 'webhooks:manage'],
};

export interface Account {
	id: string;
	name: string;
	email: string;
	handle: string | null;
	locale: Locale;
	timezone: string;
	bookingPageUrl: string | null;
	plan: 'free' | 'standard';
	scopes: Scope[];
}

export interface Price {
	amount: number;
	currency: string;
}

export type Location =
	| { kind: 'google_meet' }
	| { kind: 'teams' }
	| { kind: 'phone'; direction: 'host_calls' | 'booker_calls'; hostPhone?: string }
	| { kind: 'in_person'; address: string }
	| { kind: 'custom'; text: LocalizedText };
export type LocationKind = Location['kind'];
// not shown in the contract: the values of an event type's `locationKind`. The simulator uses the
// kinds of the booking location variants.
export const LOCATION_KINDS: readonly LocationKind[] = [
	'google_meet',
	'teams',
	'phone',
	'in_person',
	'custom',
];

export interface EventType {
	id: string;
	name: string;
	nameI18n: LocalizedText;
	description: string | null;
	slug: string;
	durationMinutes: number;
	visibility: 'public' | 'invite_only';
	active: boolean;
	bookingUrl: string | null;
	price: Price | null;
	payOnArrival: boolean;
	locationKind: LocationKind;
	createdAt: string;
	updatedAt: string;
}

export type BookingStatus =
	| 'held'
	| 'awaiting_payment'
	| 'confirmed'
	| 'cancelled'
	| 'completed'
	| 'no_show';
export const BOOKING_STATUSES: readonly BookingStatus[] = [
	'held',
	'awaiting_payment',
	'confirmed',
	'cancelled',
	'completed',
	'no_show',
];
/**
 * In-flight states: they block the time, and GET /bookings leaves them out unless asked for through
 * `status`.
 */
export const IN_FLIGHT_STATUSES: readonly BookingStatus[] = ['held', 'awaiting_payment'];

export interface Booker {
	name: string;
	email: string;
	phone: string | null;
	locale: Locale;
	timezone: string;
}

export interface Answer {
	questionId: string;
	label: string;
	labelI18n: LocalizedText;
	value: string | boolean;
}

export type PaymentStatus = 'unpaid' | 'paid' | 'refunded' | 'partially_refunded' | 'failed';
export interface Payment {
	amount: number;
	currency: string;
	status: PaymentStatus;
	refundedAmount: number;
	receiptUrl: string | null;
}

export type CancelledBy = 'booker' | 'host' | 'system';
export interface Cancellation {
	by: CancelledBy;
	reason: string | null;
	at: string;
}

export type BookingSource = 'public' | 'manual' | 'reschedule';

export interface Booking {
	id: string;
	status: BookingStatus;
	start: string;
	end: string;
	hostTimezone: string;
	eventType: { id: string; name: string; nameI18n: LocalizedText; slug: string };
	booker: Booker;
	answers: Answer[];
	bookerNotes: string | null;
	location: Location;
	joinUrl: string | null;
	source: BookingSource;
	payment: Payment | null;
	cancellation: Cancellation | null;
	manageUrl: string;
	createdAt: string;
	updatedAt: string;
}

export interface InviteLink {
	id: string;
	eventTypeId: string;
	url: string | null;
	name: string | null;
	email: string | null;
	expiresAt: string;
	usedAt: string | null;
	bookingId: string | null;
	createdAt: string;
}

export type EventKind =
	| 'booking.created'
	| 'booking.rescheduled'
	| 'booking.cancelled'
	| 'booking.no_show';
export const EVENT_KINDS: readonly EventKind[] = [
	'booking.created',
	'booking.rescheduled',
	'booking.cancelled',
	'booking.no_show',
];
/** What a subscription may list: the four kinds, or `*` for all kinds including future ones. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...EVENT_KINDS, '*'];

export interface WebhookSubscription {
	id: string;
	url: string;
	events: string[];
	description: string | null;
	status: 'active' | 'disabled';
	createdVia: string;
	lastSuccessAt: string | null;
	consecutiveFailures: number;
	createdAt: string;
}

/** The creation response: the subscription plus its signing secret, shown only once. */
export interface CreatedWebhookSubscription extends WebhookSubscription {
	secret: string;
}

export interface WebhookEvent {
	id: string;
	type: EventKind;
	createdAt: string;
	apiVersion: 'v1';
	data: { booking: Booking; previous?: { start: string; end: string } };
}
