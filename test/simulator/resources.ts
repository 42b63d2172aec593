/**
 * Records to the contract's resource shapes. This is the only place responses and event payloads
 * get their fields from, so "all fields required, no other fields" is checked here and nowhere
 * else.
 */
import { isoTime } from './clock.ts';
import { SCOPES_OF_CHOICE } from './model.ts';
import type {
	Account,
	Booking,
	CreatedWebhookSubscription,
	EventType,
	InviteLink,
	KeyChoice,
	Locale,
	LocalizedText,
	WebhookSubscription,
} from './model.ts';
import type {
	BookingRecord,
	EventTypeRecord,
	InviteRecord,
	Store,
	SubscriptionRecord,
} from './store.ts';

/** Public links point at a made-up booking site on a reserved example domain. */
export const BOOKING_SITE = 'https://book.example.com';

export function accountResource(store: Store, choice: KeyChoice): Account {
	const { id, name, email, handle, locale, timezone, bookingPageUrl, plan } = store.account;
	return {
		id,
		name,
		email,
		handle,
		locale,
		timezone,
		bookingPageUrl,
		plan,
		scopes: [...SCOPES_OF_CHOICE[choice]],
	};
}

// not shown in the contract: how `name` is "resolved to a plain string". The account's locale
// decides, falling back to the other language when that one is missing.
function resolveName(text: LocalizedText, locale: Locale): string {
	return (locale === 'ja' ? (text.ja ?? text.en) : (text.en ?? text.ja)) ?? '';
}

function copyText(text: LocalizedText): LocalizedText {
	const copy: LocalizedText = {};
	if (text.en !== undefined) copy.en = text.en;
	if (text.ja !== undefined) copy.ja = text.ja;
	return copy;
}

export function eventTypeResource(store: Store, record: EventTypeRecord): EventType {
	return {
		id: record.id,
		name: resolveName(record.nameI18n, store.account.locale),
		nameI18n: copyText(record.nameI18n),
		description: record.description,
		slug: record.slug,
		durationMinutes: record.durationMinutes,
		visibility: record.visibility,
		active: record.active,
		bookingUrl: record.bookingUrl,
		price:
			record.price === null
				? null
				: { amount: record.price.amount, currency: record.price.currency },
		payOnArrival: record.payOnArrival,
		locationKind: record.location.kind,
		createdAt: isoTime(record.createdAtMs),
		updatedAt: isoTime(record.updatedAtMs),
	};
}

export function bookingResource(store: Store, record: BookingRecord): Booking {
	const eventType = store.eventType(record.eventTypeId);
	if (eventType === undefined)
		throw new Error(`booking ${record.id} refers to a missing event type`);
	return {
		id: record.id,
		status: record.status,
		start: isoTime(record.startMs),
		end: isoTime(record.endMs),
		hostTimezone: record.hostTimezone,
		eventType: {
			id: eventType.id,
			name: resolveName(eventType.nameI18n, store.account.locale),
			nameI18n: copyText(eventType.nameI18n),
			slug: eventType.slug,
		},
		booker: { ...record.booker },
		answers: record.answers.map((answer) => ({ ...answer, labelI18n: copyText(answer.labelI18n) })),
		bookerNotes: record.bookerNotes,
		location: structuredClone(record.location),
		joinUrl: record.joinUrl,
		source: record.source,
		payment: record.payment === null ? null : { ...record.payment },
		cancellation:
			record.cancellation === null
				? null
				: {
						by: record.cancellation.by,
						reason: record.cancellation.reason,
						at: isoTime(record.cancellation.atMs),
					},
		manageUrl: `${BOOKING_SITE}/manage/${record.id}?token=${record.manageToken}`,
		createdAt: isoTime(record.createdAtMs),
		updatedAt: isoTime(record.updatedAtMs),
	};
}

function inviteUrl(store: Store, invite: InviteRecord): string {
	return `${BOOKING_SITE}/${store.account.handle ?? store.account.id}/invite/${invite.token}`;
}

/** The url is only ever shown in the creation response (contract, POST /invites). */
export function inviteResource(
	store: Store,
	record: InviteRecord,
	includeUrl: boolean,
): InviteLink {
	return {
		id: record.id,
		eventTypeId: record.eventTypeId,
		url: includeUrl ? inviteUrl(store, record) : null,
		name: record.name,
		email: record.email,
		expiresAt: isoTime(record.expiresAtMs),
		usedAt: record.usedAtMs === null ? null : isoTime(record.usedAtMs),
		bookingId: record.bookingId,
		createdAt: isoTime(record.createdAtMs),
	};
}

export function subscriptionResource(record: SubscriptionRecord): WebhookSubscription {
	return {
		id: record.id,
		url: record.url,
		events: [...record.events],
		description: record.description,
		status: record.status,
		createdVia: record.createdVia,
		lastSuccessAt: record.lastSuccessAtMs === null ? null : isoTime(record.lastSuccessAtMs),
		consecutiveFailures: record.consecutiveFailures,
		createdAt: isoTime(record.createdAtMs),
	};
}

/** The secret appears here and nowhere else in the API (contract, POST /webhooks). */
export function createdSubscriptionResource(
	record: SubscriptionRecord,
): CreatedWebhookSubscription {
	return { ...subscriptionResource(record), secret: record.secret };
}
