// A booking as the action node outputs it: names in the chosen language, start and end also as local times in the
// zone dates are read in (ItemParameters.dateTimeZone), or with Simplify a short flat summary.
import type { IDataObject } from 'n8n-workflow';

import { localizeBooking } from '../../shared/booking';
import type { Booking, NameLanguage } from '../../shared/booking';
import { formatInZone, parseUtc } from '../../shared/time';

export interface BookingOutput {
	nameLanguage: NameLanguage;
	simplify: boolean;
	/** Canonical IANA name: the zone of the local times added to the output. */
	timeZone: string;
}

/** ISO 8601 with the zone's offset (`2026-03-02T10:00:00+01:00`), so it stays unambiguous; null if unreadable. */
function localTime(instantText: string | undefined, timeZone: string): string | null {
	const instant = parseUtc(instantText ?? '');
	return Number.isNaN(instant) ? null : formatInZone(instant, timeZone);
}

/** The fields workflows map into emails, sheets and chats: about ten, as n8n's Simplify convention asks. */
export function simplifyBooking(booking: Booking, timeZone: string): IDataObject {
	return {
		id: booking.id,
		status: booking.status,
		eventTypeName: booking.eventType?.name ?? null,
		start: booking.start,
		end: booking.end,
		localStart: localTime(booking.start, timeZone),
		localTimeZone: timeZone,
		bookerName: booking.booker?.name ?? null,
		bookerEmail: booking.booker?.email ?? null,
		joinUrl: booking.joinUrl ?? null,
		manageUrl: booking.manageUrl ?? null,
	};
}

export function presentBooking(booking: Booking, output: BookingOutput): IDataObject {
	const localized = localizeBooking(booking, output.nameLanguage);
	if (output.simplify) return simplifyBooking(localized, output.timeZone);
	return {
		...localized,
		localStart: localTime(localized.start, output.timeZone),
		localEnd: localTime(localized.end, output.timeZone),
		localTimeZone: output.timeZone,
	};
}

// For bookings just parsed from a list, which nothing else holds: without Simplify or a name language the local
// times are added in place, not to a copy — no copying every field of 10,000 bookings in a Return All.
export function presentListedBooking(booking: Booking, output: BookingOutput): IDataObject {
	if (output.simplify || output.nameLanguage !== 'service') return presentBooking(booking, output);
	booking.localStart = localTime(booking.start, output.timeZone);
	booking.localEnd = localTime(booking.end, output.timeZone);
	booking.localTimeZone = output.timeZone;
	return booking;
}
