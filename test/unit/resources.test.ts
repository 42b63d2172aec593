import { describe, expect, it } from 'vitest';

import {
	presentBooking,
	simplifyBooking,
} from '../../nodes/BookingService/helpers/bookingOutput.ts';
import { localizeEventType } from '../../nodes/shared/booking.ts';
import type { Booking } from '../../nodes/shared/booking.ts';

const booking: Booking = {
	id: '0123456789abcdef01234567',
	status: 'confirmed',
	start: '2026-03-02T09:00:00Z',
	end: '2026-03-02T09:30:00Z',
	hostTimezone: 'Asia/Tokyo',
	eventType: {
		id: 'e'.repeat(24),
		name: 'Intro call',
		nameI18n: { en: 'Intro call', ja: '初回相談' },
		slug: 'intro-call',
	},
	booker: {
		name: 'Jane Doe',
		email: 'jane@example.com',
		phone: null,
		locale: 'en',
		timezone: 'Europe/Berlin',
	},
	answers: [{ questionId: 'q1', label: 'Company', labelI18n: { ja: '会社' }, value: 'ACME' }],
	bookerNotes: null,
	location: { kind: 'google_meet' },
	joinUrl: 'https://meet.example.com/abc',
	source: 'public',
	payment: null,
	cancellation: null,
	manageUrl: 'https://book.example.com/manage/x',
	createdAt: '2026-03-01T00:00:00Z',
	updatedAt: '2026-03-01T00:00:00Z',
};

describe('localized names', () => {
	it('uses the translation when present, otherwise the service name', () => {
		expect(localizeEventType({ name: 'Intro', nameI18n: { ja: '初回' } }, 'ja').name).toBe('初回');
		expect(localizeEventType({ name: 'Intro', nameI18n: { ja: '初回' } }, 'en').name).toBe('Intro');
		expect(localizeEventType({ name: 'Intro', nameI18n: { en: 'Intro EN' } }, 'service').name).toBe(
			'Intro',
		);
	});

	it('localizes the booking event type name and answer labels, leaving the rest alone', () => {
		const localized = presentBooking(booking, { nameLanguage: 'ja', simplify: false, timeZone: 'UTC' }) as Booking;

		expect(localized.eventType.name).toBe('初回相談');
		expect(localized.answers[0].label).toBe('会社');
		expect(localized.eventType.nameI18n).toEqual(booking.eventType.nameI18n);
		expect(booking.eventType.name).toBe('Intro call'); // the input is not changed
	});
});

describe('simplifyBooking', () => {
	it('is flat, about ten fields, with the start in the given zone too', () => {
		const simple = simplifyBooking(booking, 'Asia/Tokyo');

		expect(simple).toEqual({
			id: booking.id,
			status: 'confirmed',
			eventTypeName: 'Intro call',
			start: '2026-03-02T09:00:00Z',
			end: '2026-03-02T09:30:00Z',
			localStart: '2026-03-02T18:00:00+09:00',
			localTimeZone: 'Asia/Tokyo',
			bookerName: 'Jane Doe',
			bookerEmail: 'jane@example.com',
			joinUrl: booking.joinUrl,
			manageUrl: booking.manageUrl,
		});
	});

	it('the full output keeps every field of the booking and adds local start and end', () => {
		const full = presentBooking(booking, { nameLanguage: 'service', simplify: false, timeZone: 'Europe/Berlin' });

		expect(full).toEqual({
			...booking,
			localStart: '2026-03-02T10:00:00+01:00',
			localEnd: '2026-03-02T10:30:00+01:00',
			localTimeZone: 'Europe/Berlin',
		});
	});
});
