/**
 * The simulator's state: one account with its keys, event types, bookings, invites, webhook
 * subscriptions, the idempotency keys it remembers and the emails it "sent". Records hold times as
 * epoch milliseconds plus the internal facts the API never shows (schedules, notify flags,
 * secrets); `resources.ts` turns them into the contract's shapes.
 */
import { createHash } from 'node:crypto';
import { IdFactory } from './ids.ts';
import type {
	Account,
	Answer,
	Booker,
	BookingSource,
	BookingStatus,
	CancelledBy,
	KeyChoice,
	LocalizedText,
	Location,
	Payment,
	Price,
} from './model.ts';

export interface KeyRecord {
	id: string;
	/**
	 * SHA-256 of the key: like the real service, the simulator keeps no key in the clear (contract,
	 * Authentication 2).
	 */
	hash: string;
	choice: KeyChoice;
	createdAtMs: number;
	revokedAtMs: number | null;
}

/** Minutes after local midnight, in the host's time zone. */
export interface TimeWindow {
	startMinute: number;
	endMinute: number;
}

export interface EventTypeRecord {
	id: string;
	nameI18n: LocalizedText;
	description: string | null;
	slug: string;
	durationMinutes: number;
	visibility: 'public' | 'invite_only';
	active: boolean;
	bookingUrl: string | null;
	price: Price | null;
	payOnArrival: boolean;
	location: Location;
	createdAtMs: number;
	updatedAtMs: number;
	/** Weekly availability, indexed by weekday (0 = Sunday), in the host's time zone. */
	weeklyAvailability: TimeWindow[][];
	minimumNoticeMinutes: number;
	bufferBeforeMinutes: number;
	bufferAfterMinutes: number;
	maxBookingsPerDay: number | null;
}

export interface BookingRecord {
	id: string;
	/** Creation order; breaks ties between equal sort keys so paging is total and stable. */
	seq: number;
	status: BookingStatus;
	startMs: number;
	endMs: number;
	hostTimezone: string;
	eventTypeId: string;
	booker: Booker;
	answers: Answer[];
	bookerNotes: string | null;
	location: Location;
	joinUrl: string | null;
	source: BookingSource;
	payment: Payment | null;
	cancellation: { by: CancelledBy; reason: string | null; atMs: number } | null;
	manageToken: string;
	createdAtMs: number;
	updatedAtMs: number;
	/**
	 * `notify: false` at creation: no emails and no booking.created, now or when a payment later
	 * succeeds.
	 */
	notify: boolean;
}

export interface InviteRecord {
	id: string;
	eventTypeId: string;
	token: string;
	name: string | null;
	email: string | null;
	expiresAtMs: number;
	usedAtMs: number | null;
	bookingId: string | null;
	createdAtMs: number;
}

export interface SubscriptionRecord {
	id: string;
	url: string;
	events: string[];
	description: string | null;
	status: 'active' | 'disabled';
	createdVia: string;
	lastSuccessAtMs: number | null;
	consecutiveFailures: number;
	/**
	 * When the current run of consecutive failures began: the disable rule needs it to span three
	 * days.
	 */
	failureStreakStartedMs: number | null;
	createdAtMs: number;
	secret: string;
}

export interface IdempotencyRecord {
	fingerprint: string;
	bookingId: string;
	storedAtMs: number;
}

export type EmailKind =
	| 'booking_confirmation'
	| 'booking_cancelled'
	| 'refund_issued'
	| 'booking_rescheduled'
	| 'webhook_disabled';

export interface EmailRecord {
	to: string;
	kind: EmailKind;
	subject: string;
	bookingId: string | null;
	at: string;
}

/**
 * A busy time on the host's connected calendar (outside the service): it blocks slots while the
 * calendar is reachable.
 */
export interface BusyInterval {
	startMs: number;
	endMs: number;
}

export type AccountRecord = Omit<Account, 'scopes'>;

export function hashKey(key: string): string {
	return createHash('sha256').update(key).digest('hex');
}

export class Store {
	readonly ids: IdFactory;
	readonly account: AccountRecord;
	readonly keys: KeyRecord[] = [];
	/** In the order the app shows them (contract: GET /event-types). */
	readonly eventTypes: EventTypeRecord[] = [];
	readonly bookings = new Map<string, BookingRecord>();
	readonly invites = new Map<string, InviteRecord>();
	readonly subscriptions = new Map<string, SubscriptionRecord>();
	readonly idempotencyKeys = new Map<string, IdempotencyRecord>();
	readonly emails: EmailRecord[] = [];
	readonly busy: BusyInterval[] = [];
	calendarReachable = true;
	/** Set by the control interface: the zone whose days slot requests are read in, whatever they ask for. */
	slotDayZone: string | null = null;
	#bookingSeq = 0;

	constructor(ids: IdFactory, account: AccountRecord) {
		this.ids = ids;
		this.account = account;
	}

	nextBookingSeq(): number {
		this.#bookingSeq += 1;
		return this.#bookingSeq;
	}

	eventType(id: string): EventTypeRecord | undefined {
		return this.eventTypes.find((eventType) => eventType.id === id);
	}

	eventTypeBySlug(slug: string): EventTypeRecord | undefined {
		return this.eventTypes.find((eventType) => eventType.slug === slug);
	}

	activeKey(key: string): KeyRecord | undefined {
		const hash = hashKey(key);
		return this.keys.find((record) => record.hash === hash && record.revokedAtMs === null);
	}

	addBooking(booking: BookingRecord): void {
		this.bookings.set(booking.id, booking);
	}

	recordEmail(email: EmailRecord): void {
		this.emails.push(email);
	}
}
