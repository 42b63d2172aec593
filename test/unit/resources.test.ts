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
		const localized = presentBooking(booking, { nameLanguage: 'ja', simplify: false }) as Booking;

		expect(localized.eventType.name).toBe('初回相談');
		expect(localized.answers[0].label).toBe('会社');
		expect(localized.eventType.nameI18n).toEqual(booking.eventType.nameI18n);
		expect(booking.eventType.name).toBe('Intro call'); // the input is not changed
	});
});

describe('simplifyBooking', () => {
	it('is flat, with local starts in the booker and host zones', () => {
		const simple = simplifyBooking(booking);

		expect(simple).toMatchObject({
			id: booking.id,
			status: 'confirmed',
			eventTypeName: 'Intro call',
			bookerName: 'Jane Doe',
			bookerEmail: 'jane@example.com',
			start: '2026-03-02T09:00:00Z',
			end: '2026-03-02T09:30:00Z',
			bookerLocalStart: '2026-03-02T10:00:00+01:00',
			hostLocalStart: '2026-03-02T18:00:00+09:00',
			locationKind: 'google_meet',
			paymentStatus: null,
		});
		expect(
			Object.values(simple).every((value) => value === null || typeof value !== 'object'),
		).toBe(true);
	});

	it('leaves a local start out rather than failing on a zone this runtime does not know', () => {
		expect(
			simplifyBooking({ ...booking, hostTimezone: 'Nowhere/Special' }).hostLocalStart,
		).toBeNull();
	});
});
