/**
 * How the action node's booking operations output a booking: names in the chosen language, then, with Simplify, a
 * flat summary instead of the full booking.
 */
import type { IDataObject } from 'n8n-workflow';

import { localizeBooking } from '../../shared/booking';
import type { Booking, NameLanguage } from '../../shared/booking';
import { formatInZone } from './time';

export interface BookingOutput {
	nameLanguage: NameLanguage;
	simplify: boolean;
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

export function presentBooking(booking: Booking, output: BookingOutput): IDataObject {
	const localized = localizeBooking(booking, output.nameLanguage);
	return output.simplify ? simplifyBooking(localized) : localized;
}
