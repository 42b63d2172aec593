// The service's booking and event type as both nodes read them, and names in a chosen language (`nameI18n`,
// `labelI18n`). Fields the nodes do not touch pass through unchanged.
import type { IDataObject } from 'n8n-workflow';

/** Subscribes to every event kind, including ones the service adds later. */
export const ALL_EVENTS = '*';

export function isSelectedEvent(events: string[], eventType: string): boolean {
	return events.includes(ALL_EVENTS) || events.includes(eventType);
}

/** The event kinds the contract shows. */
export const BOOKING_EVENTS = [
	'booking.created',
	'booking.rescheduled',
	'booking.cancelled',
	'booking.no_show',
] as const;

/** Each booking status the contract shows, as the app writes it. */
export const BOOKING_STATUS_NAMES = {
	held: 'Held',
	awaiting_payment: 'Awaiting Payment',
	confirmed: 'Confirmed',
	cancelled: 'Cancelled',
	completed: 'Completed',
	no_show: 'No-Show',
} as const;

export type BookingStatus = keyof typeof BOOKING_STATUS_NAMES;

/** The status as a word (`No-Show` for `no_show`); a status the contract does not show is given as the service sent it. */
export function bookingStatusName(status: unknown): string {
	return Object.hasOwn(BOOKING_STATUS_NAMES, String(status))
		? BOOKING_STATUS_NAMES[status as BookingStatus]
		: String(status);
}

export type LocalizedText = { en?: string; ja?: string };

export interface EventType extends IDataObject {
	id: string;
	name: string;
	nameI18n: LocalizedText;
	slug: string;
	durationMinutes: number;
	active: boolean;
}

export interface Booking extends IDataObject {
	id: string;
	status: string;
	start: string;
	end: string;
	hostTimezone: string;
	eventType: { id: string; name: string; nameI18n: LocalizedText; slug: string };
	booker: { name: string; email: string; phone: string | null; locale: string; timezone: string };
	answers: Array<{
		questionId: string;
		label: string;
		labelI18n: LocalizedText;
		value: string | boolean;
	}>;
	bookerNotes: string | null;
	location: IDataObject & { kind: string };
	joinUrl: string | null;
	payment: (IDataObject & { status: string; amount: number; currency: string }) | null;
	cancellation: { by: string; reason: string | null; at: string } | null;
	manageUrl: string;
	createdAt: string;
	updatedAt: string;
}

/** `service`: the plain `name` the service resolved; `en` / `ja`: that translation when present, else `name`. */
export const NAME_LANGUAGES = ['service', 'en', 'ja'] as const;
export type NameLanguage = (typeof NAME_LANGUAGES)[number];

function translated(
	translations: LocalizedText | undefined,
	fallback: string,
	language: NameLanguage,
): string {
	if (language === 'service') return fallback;
	const text = translations?.[language];
	return typeof text === 'string' && text !== '' ? text : fallback;
}

export function localizeEventType<T extends Pick<EventType, 'name' | 'nameI18n'>>(
	eventType: T,
	language: NameLanguage,
): T {
	if (language === 'service') return eventType;
	return { ...eventType, name: translated(eventType.nameI18n, eventType.name, language) };
}

export function localizeBooking(booking: Booking, language: NameLanguage): Booking {
	if (language === 'service') return booking;
	return {
		...booking,
		eventType: localizeEventType(booking.eventType, language),
		answers: Array.isArray(booking.answers)
			? booking.answers.map((answer) => ({
					...answer,
					label: translated(answer.labelI18n, answer.label, language),
				}))
			: booking.answers,
	};
}
