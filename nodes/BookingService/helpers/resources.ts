/**
 * The service's resources as the node reads them, and the two ways the node reshapes them on request:
 * localized names (`nameI18n`, and answers' `labelI18n`) and the Simplify view of a booking.
 * Fields the node does not touch are passed through unchanged.
 */
import type { IDataObject } from 'n8n-workflow';

import { formatInZone } from './time';

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

function pick(
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
	return { ...eventType, name: pick(eventType.nameI18n, eventType.name, language) };
}

export function localizeBooking(booking: Booking, language: NameLanguage): Booking {
	if (language === 'service') return booking;
	return {
		...booking,
		eventType: localizeEventType(booking.eventType, language),
		answers: Array.isArray(booking.answers)
			? booking.answers.map((answer) => ({
					...answer,
					label: pick(answer.labelI18n, answer.label, language),
				}))
			: booking.answers,
	};
}

function localStart(start: string, timeZone: string | undefined): string | null {
	const instant = Date.parse(start);
	if (Number.isNaN(instant) || !timeZone) return null;
	try {
		return formatInZone(instant, timeZone);
	} catch {
		return null; // a zone this Node.js build does not know: leave the local time out rather than fail the item
	}
}

/**
 * The fields most workflows need, flat, for mapping into emails, sheets and chat messages. Local start times are
 * ISO 8601 with the zone's offset, so they stay unambiguous.
 */
export function simplifyBooking(booking: Booking): IDataObject {
	return {
		id: booking.id,
		status: booking.status,
		eventTypeId: booking.eventType?.id ?? null,
		eventTypeName: booking.eventType?.name ?? null,
		start: booking.start,
		end: booking.end,
		bookerName: booking.booker?.name ?? null,
		bookerEmail: booking.booker?.email ?? null,
		bookerPhone: booking.booker?.phone ?? null,
		bookerTimezone: booking.booker?.timezone ?? null,
		bookerLocalStart: localStart(booking.start, booking.booker?.timezone),
		hostTimezone: booking.hostTimezone ?? null,
		hostLocalStart: localStart(booking.start, booking.hostTimezone),
		locationKind: booking.location?.kind ?? null,
		joinUrl: booking.joinUrl ?? null,
		notes: booking.bookerNotes ?? null,
		paymentStatus: booking.payment?.status ?? null,
		cancelledBy: booking.cancellation?.by ?? null,
		cancellationReason: booking.cancellation?.reason ?? null,
		manageUrl: booking.manageUrl ?? null,
		createdAt: booking.createdAt,
		updatedAt: booking.updatedAt,
	};
}

/** A booking as the operations output it: localized as asked, then simplified when asked. */
export function presentBooking(
	booking: Booking,
	output: { nameLanguage: NameLanguage; simplify: boolean },
): IDataObject {
	const localized = localizeBooking(booking, output.nameLanguage);
	return output.simplify ? simplifyBooking(localized) : localized;
}
