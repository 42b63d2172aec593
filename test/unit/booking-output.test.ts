/**
 * Get Many adds the local times to each listed booking in place (presentListedBooking) instead of to a copy
 * (presentBooking): the output must be the same text, field order included, for every output setting.
 */
import { describe, expect, it } from 'vitest';

import { presentBooking, presentListedBooking } from '../../nodes/BookingService/helpers/bookingOutput.ts';
import type { BookingOutput } from '../../nodes/BookingService/helpers/bookingOutput.ts';
import { parseUtc } from '../../nodes/shared/time.ts';
import type { Booking } from '../../nodes/shared/booking.ts';

const listedBooking = JSON.stringify({
	id: 'bk_1',
	status: 'confirmed',
	start: '2026-03-29T00:30:00Z',
	end: '2026-03-29T01:30:00.250Z',
	hostTimezone: 'Europe/Berlin',
	eventType: { id: 'et_1', name: 'Intro', nameI18n: { en: 'Intro call', ja: '紹介' }, slug: 'intro' },
	booker: { name: 'Jane', email: 'jane@example.com', phone: null, locale: 'en', timezone: 'Asia/Tokyo' },
	answers: [{ questionId: 'q1', label: 'Topic', labelI18n: { ja: '話題' }, value: 'x' }],
	bookerNotes: null,
	location: { kind: 'video' },
	joinUrl: null,
	payment: null,
	cancellation: null,
	manageUrl: 'https://example.com/m/bk_1',
	createdAt: '2026-03-01T10:00:00Z',
	updatedAt: '2026-03-01T10:00:00Z',
});

/** A booking as a response parses it, each time a new one (presentListedBooking changes the one it is given). */
function parsed(extra: Record<string, unknown> = {}): Booking {
	return { ...(JSON.parse(listedBooking) as Booking), ...(extra as Partial<Booking>) };
}

describe('presentListedBooking', () => {
	const outputs: BookingOutput[] = [];
	for (const nameLanguage of ['service', 'en', 'ja'] as const) {
		for (const simplify of [false, true]) {
			for (const timeZone of ['Europe/Berlin', 'America/St_Johns', 'UTC']) outputs.push({ nameLanguage, simplify, timeZone });
		}
	}

	it.each(outputs.map((output) => [output.nameLanguage, output.simplify, output.timeZone, output] as const))(
		'gives the text presentBooking gives (names %s, simplify %s, %s)',
		(_language, _simplify, _zone, output) => {
			expect(JSON.stringify(presentListedBooking(parsed(), output))).toBe(JSON.stringify(presentBooking(parsed(), output)));
		},
	);

	it('keeps the place of a local-time field the service already sent, and an unreadable start gives null', () => {
		const output: BookingOutput = { nameLanguage: 'service', simplify: false, timeZone: 'Asia/Kathmandu' };
		const extra = { localEnd: 'from the service', start: 'not a time' };
		const listed = JSON.stringify(presentListedBooking(parsed(extra), output));
		expect(listed).toBe(JSON.stringify(presentBooking(parsed(extra), output)));
		expect(listed).toContain('"localStart":null');
	});
});

describe('parseUtc', () => {
	it('reads what Date.parse reads, the service form field by field and anything else through Date.parse', () => {
		const texts = [
			'2026-03-02T09:00:00Z',
			'2026-03-02T09:00:00.250Z',
			'2026-02-29T09:00:00Z',
			'2028-02-29T09:00:00Z',
			'2026-02-30T09:00:00Z',
			'0099-03-02T09:00:00Z',
			'2026-13-02T09:00:00Z',
			'2026-00-10T00:00:00Z',
			'2026-03-00T00:00:00Z',
			'2026-03-02T24:00:00Z',
			'2026-03-02T09:60:00Z',
			'2026-03-02T09:00:60Z',
			'2026-03-02t09:00:00Z',
			'2026-03-02T09:00:00z',
			'2026-03-02T09:00:00.25Z',
			'2026-03-02T09:00:00.2a5Z',
			'2026-03-02T09:00:0aZ',
			'2026-03-02T09:00:00+01:00',
			'x'.repeat(20),
			'',
		];
		// Instants spread over years 1000–8800, with and without milliseconds.
		for (let index = 0; index < 2_000; index++) {
			const iso = new Date(Date.UTC(1000, 0, 1) + index * 123_456_789_011).toISOString();
			texts.push(iso, `${iso.slice(0, 19)}Z`);
		}
		for (const text of texts) expect([text, parseUtc(text)]).toEqual([text, Date.parse(text)]);
	});
});
