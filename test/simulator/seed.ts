/**
 * The seeded state: one account, both kinds of API key, seven event types covering every
 * visibility, location kind and price form, and bookings in every status, payment status and
 * source. Times are laid relative to the simulated clock at start, so future bookings stay in the
 * future; ids, keys and secrets follow from the seed.
 *
 * Event types, by their stable slugs (tests pick them through GET /_control/event-types):
 *   intro-call          public, free, google_meet, 30 min, en + ja names
 *   project-sync        public, free, teams, 45 min, 15-min buffer after, 4 a day at most
 *   phone-consultation  invite-only, free, phone (host calls), 20 min, en name, 3 a day at most
 *   studio-session      public, 5000 JPY paid online, in_person, 60 min, 1 day notice, ja name
 *   career-coaching     public, 4500 USD cents paid online, custom location text, 60 min
 *   language-lesson     public, 2500 EUR cents paid on arrival, in_person, 50 min
 *   legacy-workshop     inactive, free, phone (booker calls), 90 min
 */
import { IdFactory } from './ids.ts';
import type { Answer, Booker, BookingStatus, KeyChoice, Payment } from './model.ts';
import { API_KEY_PREFIX } from './policy.ts';
import { BOOKING_SITE } from './resources.ts';
import { availableStarts } from './slots.ts';
import { insertBooking, receiptUrl } from './booking-records.ts';
import type { NewBooking } from './booking-records.ts';
import { Store, hashKey } from './store.ts';
import type { EventTypeRecord, TimeWindow } from './store.ts';
import { addDays, instantOf, wallClockAt } from './timezones.ts';
import type { CalendarDate } from './validation.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const HOST_TIME_ZONE = 'Asia/Tokyo';

export interface SeedOptions {
	seed: number;
	nowMs: number;
	generatedBookings: number;
}

export interface Seeded {
	store: Store;
	apiKeys: Record<KeyChoice, string>;
}

/**
 * The key of each choice depends only on the seed, so a restart or reset with the same seed keeps
 * the same keys.
 */
export function seededApiKey(ids: IdFactory, choice: KeyChoice): string {
	return `${API_KEY_PREFIX}${ids.named(`api-key:${choice}`, 40)}`;
}

export function seed(options: SeedOptions): Seeded {
	const ids = new IdFactory(options.seed);
	const store = new Store(ids, {
		id: ids.id(),
		name: 'Aiko Tanaka',
		email: 'aiko@example.com',
		handle: 'aiko',
		locale: 'en',
		timezone: HOST_TIME_ZONE,
		bookingPageUrl: `${BOOKING_SITE}/aiko`,
		plan: 'standard',
	});
	const apiKeys = {
		readWrite: seededApiKey(ids, 'readWrite'),
		readOnly: seededApiKey(ids, 'readOnly'),
	};
	for (const choice of ['readWrite', 'readOnly'] as const) {
		store.keys.push({
			id: ids.id(),
			hash: hashKey(apiKeys[choice]),
			choice,
			createdAtMs: options.nowMs - 30 * DAY,
			revokedAtMs: null,
		});
	}
	seedEventTypes(store, options.nowMs);
	seedBookings(store, options.nowMs);
	seedCalendar(store, options.nowMs);
	generateBookings(store, options.nowMs, { count: options.generatedBookings });
	return { store, apiKeys };
}

function weekdays(days: number[], from: string, to: string): TimeWindow[][] {
	const window = { startMinute: minutesOf(from), endMinute: minutesOf(to) };
	return [0, 1, 2, 3, 4, 5, 6].map((day) => (days.includes(day) ? [window] : []));
}

function minutesOf(hhmm: string): number {
	const [hours, minutes] = hhmm.split(':').map(Number);
	return hours * 60 + minutes;
}

const MON_FRI = [1, 2, 3, 4, 5];

function seedEventTypes(store: Store, nowMs: number): void {
	const base = {
		description: null,
		active: true,
		price: null,
		payOnArrival: false,
		minimumNoticeMinutes: 120,
		bufferBeforeMinutes: 0,
		bufferAfterMinutes: 0,
		maxBookingsPerDay: null,
	};
	const definitions: Array<
		Omit<EventTypeRecord, 'id' | 'createdAtMs' | 'updatedAtMs' | 'bookingUrl'>
	> = [
		{
			...base,
			slug: 'intro-call',
			nameI18n: { en: 'Intro call', ja: '初回相談' },
			description: 'A first 30-minute video call to get to know each other.',
			durationMinutes: 30,
			visibility: 'public',
			location: { kind: 'google_meet' },
			weeklyAvailability: weekdays(MON_FRI, '09:00', '17:00'),
		},
		{
			...base,
			slug: 'project-sync',
			nameI18n: { en: 'Project sync', ja: 'プロジェクト定例' },
			durationMinutes: 45,
			visibility: 'public',
			location: { kind: 'teams' },
			weeklyAvailability: weekdays(MON_FRI, '10:00', '18:00'),
			bufferAfterMinutes: 15,
			maxBookingsPerDay: 4,
		},
		{
			...base,
			slug: 'phone-consultation',
			nameI18n: { en: 'Phone consultation' },
			durationMinutes: 20,
			visibility: 'invite_only',
			location: { kind: 'phone', direction: 'host_calls', hostPhone: '+81 3-1234-5678' },
			weeklyAvailability: weekdays(MON_FRI, '13:00', '17:00'),
			maxBookingsPerDay: 3,
		},
		{
			...base,
			slug: 'studio-session',
			nameI18n: { ja: 'スタジオ撮影' },
			description: 'Portrait session at the studio.',
			durationMinutes: 60,
			visibility: 'public',
			price: { amount: 5000, currency: 'JPY' },
			location: { kind: 'in_person', address: '1-2-3 Jingumae, Shibuya-ku, Tokyo 150-0001' },
			weeklyAvailability: weekdays([2, 3, 4, 5, 6], '10:00', '16:00'),
			minimumNoticeMinutes: 24 * 60,
		},
		{
			...base,
			slug: 'career-coaching',
			nameI18n: { en: 'Career coaching', ja: 'キャリアコーチング' },
			durationMinutes: 60,
			visibility: 'public',
			price: { amount: 4500, currency: 'USD' },
			location: {
				kind: 'custom',
				text: { en: 'We will email you the meeting details.', ja: '詳細はメールでお送りします。' },
			},
			weeklyAvailability: weekdays(MON_FRI, '08:00', '12:00'),
		},
		{
			...base,
			slug: 'language-lesson',
			nameI18n: { en: 'Language lesson', ja: '語学レッスン' },
			durationMinutes: 50,
			visibility: 'public',
			price: { amount: 2500, currency: 'EUR' },
			payOnArrival: true,
			location: { kind: 'in_person', address: 'Café Lumière, 4-5-6 Kichijoji, Musashino, Tokyo' },
			weeklyAvailability: weekdays([1, 3, 5], '15:00', '19:00'),
		},
		{
			...base,
			slug: 'legacy-workshop',
			nameI18n: { en: 'Legacy workshop', ja: '旧ワークショップ' },
			durationMinutes: 90,
			visibility: 'public',
			active: false,
			location: { kind: 'phone', direction: 'booker_calls' },
			weeklyAvailability: weekdays(MON_FRI, '10:00', '16:00'),
		},
	];
	definitions.forEach((definition, index) => {
		const createdAtMs = nowMs - (90 - index) * DAY;
		const published = definition.active && definition.visibility === 'public';
		store.eventTypes.push({
			...definition,
			id: store.ids.id(),
			// Invite-only and inactive types have no public page.
			bookingUrl: published ? `${BOOKING_SITE}/aiko/${definition.slug}` : null,
			createdAtMs,
			updatedAtMs: createdAtMs + index * HOUR,
		});
	});
}

function eventTypeBySlug(store: Store, slug: string): EventTypeRecord {
	const eventType = store.eventTypeBySlug(slug);
	if (eventType === undefined) throw new Error(`seed refers to a missing event type ${slug}`);
	return eventType;
}

function payment(
	store: Store,
	eventType: EventTypeRecord,
	status: Payment['status'],
	refundedAmount = 0,
): Payment | null {
	if (eventType.price === null) return null;
	return {
		amount: eventType.price.amount,
		currency: eventType.price.currency,
		status,
		refundedAmount,
		receiptUrl: status === 'unpaid' || status === 'failed' ? null : receiptUrl(store),
	};
}

/**
 * The `index`-th offered start on the first day at least `daysAhead` ahead that offers that many.
 */
function futureStart(
	store: Store,
	eventType: EventTypeRecord,
	nowMs: number,
	daysAhead: number,
	index: number,
): number {
	const today = wallClockAt(nowMs, store.account.timezone);
	for (let offset = daysAhead; offset < daysAhead + 14; offset += 1) {
		const date: CalendarDate = addDays(today, offset);
		const fromMs = instantOf(date, 0, store.account.timezone);
		const starts = availableStarts(store, { eventType, fromMs, toMs: fromMs + DAY, nowMs });
		if (starts.length > index) return starts[index];
	}
	throw new Error(`no seed slot for ${eventType.slug}`);
}

/**
 * A start `daysAgo` days back at the type's first daily window, for bookings that already happened.
 */
function pastStart(
	store: Store,
	eventType: EventTypeRecord,
	nowMs: number,
	daysAgo: number,
): number {
	const date = addDays(wallClockAt(nowMs, store.account.timezone), -daysAgo);
	const window = eventType.weeklyAvailability.find((windows) => windows.length > 0)?.[0];
	return instantOf(date, window?.startMinute ?? 600, store.account.timezone);
}

const COMPANY_QUESTION = '5f1c0a7e9b3d4c2a1e0f9a8b';
const CONSENT_QUESTION = '5f1c0a7e9b3d4c2a1e0f9a8c';

function answers(company: string): Answer[] {
	return [
		{
			questionId: COMPANY_QUESTION,
			label: 'Company',
			labelI18n: { en: 'Company', ja: '会社名' },
			value: company,
		},
		{
			questionId: CONSENT_QUESTION,
			label: 'I agree to the cancellation policy',
			labelI18n: { en: 'I agree to the cancellation policy', ja: 'キャンセルポリシーに同意します' },
			value: true,
		},
	];
}

const EMMA: Booker = {
	name: 'Emma Wilson',
	email: 'emma@example.org',
	phone: null,
	locale: 'en',
	timezone: 'Europe/London',
};
const TARO: Booker = {
	name: '山田 太郎',
	email: 'taro.yamada@example.jp',
	phone: '+81 90-1234-5678',
	locale: 'ja',
	timezone: 'Asia/Tokyo',
};
const LUIS: Booker = {
	name: 'Luis García',
	email: 'luis@example.net',
	phone: '+1 415 555 0100',
	locale: 'en',
	timezone: 'America/Los_Angeles',
};
const MEI: Booker = {
	name: '佐藤 美衣',
	email: 'mei.sato@example.jp',
	phone: null,
	locale: 'ja',
	timezone: 'Asia/Tokyo',
};

function seedBookings(store: Store, nowMs: number): void {
	const intro = eventTypeBySlug(store, 'intro-call');
	const sync = eventTypeBySlug(store, 'project-sync');
	const phone = eventTypeBySlug(store, 'phone-consultation');
	const studio = eventTypeBySlug(store, 'studio-session');
	const coaching = eventTypeBySlug(store, 'career-coaching');
	const lesson = eventTypeBySlug(store, 'language-lesson');
	// Each entry is created later than the one before, so `-createdAt` lists them newest (last)
	// first.
	const rows: Array<Omit<NewBooking, 'createdAtMs'>> = [
		{
			eventType: sync,
			status: 'completed',
			startMs: pastStart(store, sync, nowMs, 6),
			booker: LUIS,
			source: 'manual',
		},
		{
			eventType: studio,
			status: 'completed',
			startMs: pastStart(store, studio, nowMs, 9),
			booker: TARO,
			source: 'reschedule',
			payment: payment(store, studio, 'partially_refunded', 2000),
		},
		{
			eventType: phone,
			status: 'no_show',
			startMs: pastStart(store, phone, nowMs, 3),
			booker: MEI,
			source: 'public',
		},
		{
			eventType: intro,
			status: 'confirmed',
			startMs: futureStart(store, intro, nowMs, 2, 1),
			booker: EMMA,
			source: 'public',
			answers: answers('Wilson & Co'),
			bookerNotes: 'Looking forward to talking about the redesign.',
		},
		{
			eventType: studio,
			status: 'confirmed',
			startMs: futureStart(store, studio, nowMs, 3, 0),
			booker: TARO,
			source: 'manual',
			payment: payment(store, studio, 'paid'),
		},
		{
			eventType: lesson,
			status: 'confirmed',
			startMs: futureStart(store, lesson, nowMs, 2, 0),
			booker: LUIS,
			source: 'public',
			payment: payment(store, lesson, 'unpaid'),
		},
		{
			eventType: phone,
			status: 'confirmed',
			startMs: futureStart(store, phone, nowMs, 4, 0),
			booker: MEI,
			source: 'public',
		},
		{
			eventType: intro,
			status: 'held',
			startMs: futureStart(store, intro, nowMs, 2, 4),
			booker: LUIS,
			source: 'public',
		},
		{
			eventType: coaching,
			status: 'awaiting_payment',
			startMs: futureStart(store, coaching, nowMs, 2, 0),
			booker: EMMA,
			source: 'public',
			payment: payment(store, coaching, 'unpaid'),
		},
		{
			eventType: intro,
			status: 'cancelled',
			startMs: futureStart(store, intro, nowMs, 5, 2),
			booker: TARO,
			source: 'public',
			cancellation: { by: 'booker', reason: 'Something came up at work.', atMs: nowMs - 2 * HOUR },
		},
		{
			eventType: coaching,
			status: 'cancelled',
			startMs: futureStart(store, coaching, nowMs, 6, 1),
			booker: LUIS,
			source: 'public',
			payment: payment(store, coaching, 'failed'),
			cancellation: { by: 'system', reason: null, atMs: nowMs - HOUR },
		},
		{
			eventType: studio,
			status: 'cancelled',
			startMs: futureStart(store, studio, nowMs, 7, 2),
			booker: MEI,
			source: 'manual',
			payment: payment(store, studio, 'refunded', 5000),
			cancellation: {
				by: 'host',
				reason: 'Studio closed for maintenance.',
				atMs: nowMs - 30 * 60_000,
			},
		},
	];
	rows.forEach((row, index) => {
		insertBooking(store, { ...row, createdAtMs: nowMs - (rows.length - index) * DAY });
	});
}

/** Two busy times on the connected calendar: tomorrow and the day after, 12:00–13:00 host time. */
function seedCalendar(store: Store, nowMs: number): void {
	const today = wallClockAt(nowMs, store.account.timezone);
	for (const offset of [1, 2]) {
		const startMs = instantOf(addDays(today, offset), 12 * 60, store.account.timezone);
		store.busy.push({ startMs, endMs: startMs + HOUR });
	}
}

export interface GenerateRequest {
	count: number;
	eventTypeId?: string;
	status?: BookingStatus;
}

const PAID_FOR_STATUS: Record<BookingStatus, Payment['status']> = {
	held: 'unpaid',
	awaiting_payment: 'unpaid',
	confirmed: 'paid',
	completed: 'paid',
	no_show: 'paid',
	cancelled: 'refunded',
};

/**
 * Extra bookings for paging and filter tests, created silently (no emails, no events). They lie in
 * the past, one an hour apart and never overlapping, so they neither take future slots nor collide
 * with one another.
 */
export function generateBookings(store: Store, nowMs: number, request: GenerateRequest): string[] {
	const status = request.status ?? 'confirmed';
	const eventType =
		request.eventTypeId !== undefined
			? store.eventType(request.eventTypeId)
			: status === 'awaiting_payment'
				? eventTypeBySlug(store, 'career-coaching')
				: eventTypeBySlug(store, 'intro-call');
	if (eventType === undefined) throw new Error('unknown event type');
	const firstHour = Math.floor(nowMs / HOUR) * HOUR - 30 * DAY;
	const ids: string[] = [];
	for (let index = 0; index < request.count; index += 1) {
		// Bookings are never deleted, so the count numbers them uniquely.
		const number = store.bookings.size + 1;
		const label = String(number).padStart(4, '0');
		const paymentStatus = PAID_FOR_STATUS[status];
		const record = insertBooking(store, {
			eventType,
			status,
			startMs: firstHour - number * HOUR,
			booker: {
				name: `Guest ${label}`,
				email: `guest${label}@example.com`,
				phone: null,
				locale: 'en',
				timezone: 'UTC',
			},
			source: 'public',
			createdAtMs: nowMs,
			payment: payment(
				store,
				eventType,
				paymentStatus,
				paymentStatus === 'refunded' ? (eventType.price?.amount ?? 0) : 0,
			),
			cancellation: status === 'cancelled' ? { by: 'host', reason: null, atMs: nowMs } : null,
			notify: false,
		});
		ids.push(record.id);
	}
	return ids;
}
