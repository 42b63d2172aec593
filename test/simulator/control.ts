/**
 * The control interface: what happens outside the API (a booker reschedules, a payment succeeds, a
 * key is revoked), the clock, faults, the rate limit, and views of everything the simulator
 * recorded. `SimulatorControl` is the in-process form (`sim.control` in tests); `handleControl`
 * serves the same methods over HTTP under /_control, without authentication. README.md lists both.
 */
import { isoTime } from './clock.ts';
import type { DeliveryLogEntry, DeliveryMode } from './deliveries.ts';
import { ApiError, errorEnvelope } from './errors.ts';
import {
	cancelBooking,
	completeBooking,
	createBooking,
	editBookingNotes,
	markNoShow,
	rescheduleBooking,
	settlePayment,
} from './lifecycle.ts';
import { BOOKING_STATUSES, LOCALES } from './model.ts';
import type {
	Booker,
	Booking,
	BookingStatus,
	EventType,
	InviteLink,
	KeyChoice,
	WebhookEvent,
	WebhookSubscription,
} from './model.ts';
import { API_KEY_PREFIX, MAX_API_KEYS } from './policy.ts';
import {
	bookingResource,
	eventTypeResource,
	inviteResource,
	subscriptionResource,
} from './resources.ts';
import type { Reply } from './routes/route.ts';
import { generateBookings } from './seed.ts';
import type { Simulation } from './simulation.ts';
import { hashKey } from './store.ts';
import type { BookingRecord, EmailRecord } from './store.ts';
import type { FaultSpec, RateLimit, RequestLogEntry } from './traffic.ts';
import { isTimeZone, parseUtcDateTime } from './validation.ts';

/**
 * A refused control request. Codes beyond the API's own: invite_used, invite_expired, key_limit.
 */
export class ControlError extends Error {
	readonly code: string;
	readonly status: number;

	constructor(status: number, code: string, message: string) {
		super(message);
		this.status = status;
		this.code = code;
	}
}

/**
 * A subscription as the account owner would see it in the app: with its secret and failure streak.
 */
export interface WebhookView extends WebhookSubscription {
	secret: string;
	failureStreakStartedAt: string | null;
}

export class SimulatorControl {
	readonly #sim: Simulation;

	constructor(sim: Simulation) {
		this.#sim = sim;
	}

	/**
	 * Back to the seeded state: keys, data, subscriptions, logs, faults, rate limit, delivery mode,
	 * switches and clock.
	 */
	reset(): void {
		this.#sim.reset();
	}

	/** Every /v1 request received, oldest first. Never holds an Authorization value. */
	requests(): RequestLogEntry[] {
		return this.#sim.traffic.requests.map((entry) => ({ ...entry }));
	}

	clearRequests(): void {
		this.#sim.traffic.clearRequests();
	}

	/** All bookings in every status, in creation order. */
	bookings(): Booking[] {
		const { store } = this.#sim;
		return [...store.bookings.values()]
			.sort((a, b) => a.seq - b.seq)
			.map((booking) => bookingResource(store, booking));
	}

	/** Creates bookings silently (no emails, no events); see generateBookings in seed.ts. */
	generateBookings(request: { count: number; eventTypeId?: string; status?: BookingStatus }): {
		ids: string[];
	} {
		if (!Number.isInteger(request.count) || request.count < 0 || request.count > 10_000) {
			throw new ControlError(400, 'validation_failed', 'count must be an integer from 0 to 10000');
		}
		if (request.status !== undefined && !BOOKING_STATUSES.includes(request.status)) {
			throw new ControlError(
				400,
				'validation_failed',
				`status must be one of ${BOOKING_STATUSES.join(', ')}`,
			);
		}
		if (request.eventTypeId !== undefined) {
			const eventType = this.#sim.store.eventType(request.eventTypeId);
			if (eventType === undefined)
				throw new ControlError(404, 'not_found', 'Event type not found.');
			if (
				request.status === 'awaiting_payment' &&
				(eventType.price === null || eventType.payOnArrival)
			) {
				throw new ControlError(
					400,
					'validation_failed',
					'awaiting_payment needs an event type paid online',
				);
			}
		}
		return { ids: generateBookings(this.#sim.store, this.#sim.clock.now(), request) };
	}

	/** All event types, inactive ones included, in the app's order. */
	eventTypes(): EventType[] {
		const { store } = this.#sim;
		return store.eventTypes.map((eventType) => eventTypeResource(store, eventType));
	}

	/** One seeded event type by its slug (intro-call, studio-session, …; see seed.ts). */
	eventType(slug: string): EventType {
		const record = this.#sim.store.eventTypeBySlug(slug);
		if (record === undefined)
			throw new ControlError(404, 'not_found', `No event type with slug ${slug}.`);
		return eventTypeResource(this.#sim.store, record);
	}

	/** The booker or the host moves a booking: one booking.rescheduled with `data.previous`. */
	reschedule(id: string, request: { start: string; by: 'booker' | 'host' }): Booking {
		const startMs = parseUtcDateTime(request.start);
		if (startMs === undefined)
			throw new ControlError(400, 'validation_failed', 'start must be a UTC date-time ending in Z');
		if (request.by !== 'booker' && request.by !== 'host')
			throw new ControlError(400, 'validation_failed', 'by must be booker or host');
		return this.#resource(rescheduleBooking(this.#sim, this.#booking(id), startMs, request.by));
	}

	/** The host marks a booking as a no-show: booking.no_show. */
	noShow(id: string): Booking {
		return this.#resource(markNoShow(this.#sim, this.#booking(id)));
	}

	/** The booking took place: completed (no event; only a polling client sees it). */
	complete(id: string): Booking {
		return this.#resource(completeBooking(this.#sim, this.#booking(id)));
	}

	/**
	 * A booker books in the app (source `public`; emails and events as for the API), without an HTTP request: the
	 * model-based tests make many bookings and must not spend the rate budget of the trigger under test.
	 */
	book(request: { slug: string; start: string; email: string }): Booking {
		const eventType = this.#sim.store.eventTypeBySlug(request.slug);
		if (eventType === undefined)
			throw new ControlError(404, 'not_found', `No event type with slug ${request.slug}.`);
		const startMs = parseUtcDateTime(request.start);
		if (startMs === undefined)
			throw new ControlError(400, 'validation_failed', 'start must be a UTC date-time ending in Z');
		const booker = { name: 'App Booker', email: request.email, phone: null, locale: 'en' as const, timezone: 'UTC' };
		return this.#resource(
			createBooking(this.#sim, { eventType, startMs, booker, notes: null, notify: true, source: 'public' }),
		);
	}

	/** The host edits the booking's notes in the app: a change with no event (only a polling client sees it). */
	editNotes(id: string, request: { notes: string | null }): Booking {
		if (request.notes !== null && typeof request.notes !== 'string')
			throw new ControlError(400, 'validation_failed', 'notes must be a string or null');
		return this.#resource(editBookingNotes(this.#sim, this.#booking(id), request.notes));
	}

	/**
	 * The online payment of a booking awaiting it succeeds (confirmed, booking.created) or is not
	 * completed (cancelled by the system).
	 */
	payment(id: string, request: { outcome: 'succeeded' | 'not_completed' }): Booking {
		if (request.outcome !== 'succeeded' && request.outcome !== 'not_completed') {
			throw new ControlError(
				400,
				'validation_failed',
				'outcome must be succeeded or not_completed',
			);
		}
		return this.#resource(settlePayment(this.#sim, this.#booking(id), request.outcome));
	}

	/** The booker or the host cancels in the app: the same rules as POST /bookings/{id}/cancel. */
	cancel(id: string, request: { by: 'booker' | 'host'; reason?: string | null }): Booking {
		if (request.by !== 'booker' && request.by !== 'host')
			throw new ControlError(400, 'validation_failed', 'by must be booker or host');
		return this.#resource(
			cancelBooking(this.#sim, this.#booking(id), request.by, request.reason ?? null),
		);
	}

	/** A new API key of one of the two permission choices (at most ten unrevoked keys). */
	createKey(scopes: KeyChoice): { key: string } {
		if (scopes !== 'readOnly' && scopes !== 'readWrite') {
			throw new ControlError(400, 'validation_failed', 'scopes must be readOnly or readWrite');
		}
		const { store } = this.#sim;
		if (store.keys.filter((key) => key.revokedAtMs === null).length >= MAX_API_KEYS) {
			throw new ControlError(409, 'key_limit', `An account has at most ${MAX_API_KEYS} keys.`);
		}
		const key = `${API_KEY_PREFIX}${store.ids.hex(40)}`;
		store.keys.push({
			id: store.ids.id(),
			hash: hashKey(key),
			choice: scopes,
			createdAtMs: this.#sim.clock.now(),
			revokedAtMs: null,
		});
		return { key };
	}

	/** Revokes a key, effective on the next request. */
	revokeKey(key: string): void {
		const record = this.#sim.store.activeKey(key);
		if (record === undefined) throw new ControlError(404, 'not_found', 'No such active key.');
		record.revokedAtMs = this.#sim.clock.now();
	}

	now(): { now: string } {
		return { now: isoTime(this.#sim.clock.now()) };
	}

	/**
	 * Jumps the clock (backwards too). Nothing is run on the way: use advanceClock for that. `frozen` keeps it at
	 * that instant until the next move, so that changes share one timestamp.
	 */
	setClock(now: string, options: { frozen?: boolean } = {}): { now: string } {
		const epochMs = parseUtcDateTime(now);
		if (epochMs === undefined)
			throw new ControlError(400, 'validation_failed', 'now must be a UTC date-time ending in Z');
		this.#sim.clock.moveTo(epochMs, options.frozen === true);
		this.#sim.deliveries.pump();
		return this.now();
	}

	/**
	 * Moves the clock forward, running each delivery retry that falls due on the way; resolves when
	 * they have settled.
	 */
	async advanceClock(seconds: number): Promise<{ now: string }> {
		if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
			throw new ControlError(400, 'validation_failed', 'seconds must be a number of at least 0');
		}
		await this.#sim.deliveries.advance(seconds);
		return this.now();
	}

	addFault(fault: FaultSpec): void {
		const kinds = ['status', 'rate_limit', 'latency', 'drop'];
		if (
			typeof fault.method !== 'string' ||
			typeof fault.path !== 'string' ||
			!kinds.includes(fault.kind)
		) {
			throw new ControlError(
				400,
				'validation_failed',
				`a fault needs method, path and kind (${kinds.join(', ')})`,
			);
		}
		if (!Number.isInteger(fault.count) || fault.count < 1)
			throw new ControlError(400, 'validation_failed', 'count must be a positive integer');
		if (fault.phase !== undefined && fault.phase !== 'before' && fault.phase !== 'after') {
			throw new ControlError(400, 'validation_failed', 'phase must be before or after');
		}
		const query = fault.query as unknown;
		if (
			query !== undefined &&
			(typeof query !== 'object' || query === null || Object.values(query).some((value) => typeof value !== 'string'))
		) {
			throw new ControlError(400, 'validation_failed', 'query must map parameter names to strings');
		}
		this.#sim.traffic.addFault(fault);
	}

	/** Faults still pending, with their remaining counts. */
	faults(): FaultSpec[] {
		return this.#sim.traffic.faults;
	}

	clearFaults(): void {
		this.#sim.traffic.clearFaults();
	}

	setRateLimit(limit: RateLimit | false): void {
		if (
			limit !== false &&
			!(Number.isInteger(limit.requests) && limit.requests > 0 && limit.perSeconds > 0)
		) {
			throw new ControlError(
				400,
				'validation_failed',
				'give { requests, perSeconds } (positive) or false',
			);
		}
		this.#sim.traffic.setRateLimit(limit);
	}

	webhooks(): WebhookView[] {
		return [...this.#sim.store.subscriptions.values()].map((record) => ({
			...subscriptionResource(record),
			secret: record.secret,
			failureStreakStartedAt:
				record.failureStreakStartedMs === null ? null : isoTime(record.failureStreakStartedMs),
		}));
	}

	/** The account owner switches a disabled subscription back on in the app. */
	enableWebhook(id: string): WebhookView {
		const record = this.#sim.store.subscriptions.get(id);
		if (record === undefined)
			throw new ControlError(404, 'not_found', 'Webhook subscription not found.');
		record.status = 'active';
		record.consecutiveFailures = 0;
		record.failureStreakStartedMs = null;
		const view = this.webhooks().find((subscription) => subscription.id === id);
		if (view === undefined) throw new Error('subscription vanished');
		return view;
	}

	deliveries(): DeliveryLogEntry[] {
		return this.#sim.deliveries.log.map((entry) => ({ ...entry }));
	}

	setDeliveryMode(mode: Partial<DeliveryMode>): DeliveryMode {
		if (
			mode.duplicates !== undefined &&
			!(Number.isInteger(mode.duplicates) && mode.duplicates >= 0 && mode.duplicates <= 10)
		) {
			throw new ControlError(
				400,
				'validation_failed',
				'duplicates must be an integer from 0 to 10',
			);
		}
		if (mode.shuffle !== undefined && typeof mode.shuffle !== 'boolean') {
			throw new ControlError(400, 'validation_failed', 'shuffle must be a boolean');
		}
		this.#sim.deliveries.setMode(mode);
		return this.#sim.deliveries.mode;
	}

	/** Resolves once no delivery is in flight or due now; returns the delivery log. */
	drainDeliveries(): Promise<DeliveryLogEntry[]> {
		return this.#sim.deliveries.drain();
	}

	emails(): EmailRecord[] {
		return this.#sim.store.emails.map((email) => ({ ...email }));
	}

	/** Every event emitted, whether or not anyone was subscribed. */
	events(): WebhookEvent[] {
		return this.#sim.deliveries.events.map((event) => structuredClone(event));
	}

	/** Invite links as the API shows them after creation (url null). */
	invites(): InviteLink[] {
		const { store } = this.#sim;
		return [...store.invites.values()].map((invite) => inviteResource(store, invite, false));
	}

	/** The invitee books through the link: once, before it expires. */
	useInvite(id: string, request: { start: string; booker?: Partial<Booker> }): Booking {
		const { store } = this.#sim;
		const invite = store.invites.get(id);
		if (invite === undefined) throw new ControlError(404, 'not_found', 'Invite link not found.');
		const nowMs = this.#sim.clock.now();
		if (invite.usedAtMs !== null)
			throw new ControlError(409, 'invite_used', 'This invite link was already used.');
		if (nowMs >= invite.expiresAtMs)
			throw new ControlError(409, 'invite_expired', 'This invite link has expired.');
		const startMs = parseUtcDateTime(request.start);
		if (startMs === undefined)
			throw new ControlError(400, 'validation_failed', 'start must be a UTC date-time ending in Z');
		const booker: Booker = {
			name: request.booker?.name ?? invite.name ?? 'Invitee',
			email: request.booker?.email ?? invite.email ?? 'invitee@example.com',
			phone: request.booker?.phone ?? null,
			locale:
				request.booker?.locale !== undefined && LOCALES.includes(request.booker.locale)
					? request.booker.locale
					: 'en',
			timezone:
				request.booker?.timezone !== undefined && isTimeZone(request.booker.timezone)
					? request.booker.timezone
					: 'UTC',
		};
		const eventType = store.eventType(invite.eventTypeId);
		if (eventType === undefined) throw new ControlError(404, 'not_found', 'Event type not found.');
		const booking = createBooking(this.#sim, {
			eventType,
			startMs,
			booker,
			notes: null,
			notify: true,
			source: 'public',
		});
		invite.usedAtMs = nowMs;
		invite.bookingId = booking.id;
		return this.#resource(booking);
	}

	/**
	 * Flips the local-use switch for webhook targets (http and non-public addresses). Existing
	 * subscriptions are re-checked against it before their next delivery.
	 */
	setInsecureWebhookTargets(request: { allowed: boolean }): void {
		if (typeof request.allowed !== 'boolean')
			throw new ControlError(400, 'validation_failed', 'allowed must be a boolean');
		this.#sim.allowInsecureWebhookTargets = request.allowed;
	}

	/**
	 * Whether the host's connected calendar answers; when it does not, slots say calendarBlocked:
	 * true.
	 */
	setCalendar(request: { reachable: boolean }): void {
		if (typeof request.reachable !== 'boolean')
			throw new ControlError(400, 'validation_failed', 'reachable must be a boolean');
		this.#sim.store.calendarReachable = request.reachable;
	}

	/**
	 * Makes GET /event-types/{id}/slots read `from`/`to` as days of this zone whatever `timezone` says (null: back
	 * to the default reading). How the real service reads them is not shown; clients must be right under any reading.
	 */
	setSlotDayZone(request: { zone: string | null }): void {
		if (request.zone !== null && (typeof request.zone !== 'string' || !isTimeZone(request.zone)))
			throw new ControlError(400, 'validation_failed', 'zone must be an IANA time zone name or null');
		this.#sim.store.slotDayZone = request.zone;
	}

	#booking(id: string): BookingRecord {
		const booking = this.#sim.store.bookings.get(id);
		if (booking === undefined) throw new ControlError(404, 'not_found', 'Booking not found.');
		return booking;
	}

	#resource(booking: BookingRecord): Booking {
		return bookingResource(this.#sim.store, booking);
	}
}

type ControlHandler = (control: SimulatorControl, params: string[], body: unknown) => unknown;

/** The body's fields, for handlers whose control method validates them. */
function fields<T>(body: unknown): T {
	return (typeof body === 'object' && body !== null ? body : {}) as T;
}

/**
 * The HTTP form of each method; paths are relative to /_control and `:id` segments become params.
 */
const CONTROL_ROUTES: Array<[method: string, path: string, handler: ControlHandler]> = [
	['POST', '/reset', (control) => control.reset()],
	['GET', '/requests', (control) => ({ items: control.requests() })],
	['DELETE', '/requests', (control) => control.clearRequests()],
	['GET', '/bookings', (control) => ({ items: control.bookings() })],
	[
		'POST',
		'/bookings/generate',
		(control, _params, body) => control.generateBookings(fields(body)),
	],
	[
		'POST',
		'/bookings/:id/reschedule',
		(control, [id], body) => control.reschedule(id, fields(body)),
	],
	['POST', '/bookings/:id/no-show', (control, [id]) => control.noShow(id)],
	['POST', '/bookings/:id/complete', (control, [id]) => control.complete(id)],
	['POST', '/bookings/book', (control, _params, body) => control.book(fields(body))],
	['POST', '/bookings/:id/notes', (control, [id], body) => control.editNotes(id, fields(body))],
	['POST', '/bookings/:id/payment', (control, [id], body) => control.payment(id, fields(body))],
	['POST', '/bookings/:id/cancel', (control, [id], body) => control.cancel(id, fields(body))],
	['GET', '/event-types', (control) => ({ items: control.eventTypes() })],
	[
		'POST',
		'/keys',
		(control, _params, body) => control.createKey(fields<{ scopes: KeyChoice }>(body).scopes),
	],
	[
		'POST',
		'/keys/revoke',
		(control, _params, body) => control.revokeKey(String(fields<{ key: unknown }>(body).key)),
	],
	['GET', '/clock', (control) => control.now()],
	[
		'POST',
		'/clock',
		(control, _params, body) => {
			const { now, frozen } = fields<{ now: unknown; frozen?: unknown }>(body);
			return control.setClock(String(now), { frozen: frozen === true });
		},
	],
	[
		'POST',
		'/clock/advance',
		(control, _params, body) => control.advanceClock(fields<{ seconds: number }>(body).seconds),
	],
	['GET', '/faults', (control) => ({ items: control.faults() })],
	['POST', '/faults', (control, _params, body) => control.addFault(fields(body))],
	['DELETE', '/faults', (control) => control.clearFaults()],
	[
		'POST',
		'/rate-limit',
		(control, _params, body) => control.setRateLimit(body === false ? false : fields(body)),
	],
	['GET', '/webhooks', (control) => ({ items: control.webhooks() })],
	['POST', '/webhooks/:id/enable', (control, [id]) => control.enableWebhook(id)],
	['GET', '/deliveries', (control) => ({ items: control.deliveries() })],
	['POST', '/deliveries/mode', (control, _params, body) => control.setDeliveryMode(fields(body))],
	['POST', '/deliveries/drain', async (control) => ({ items: await control.drainDeliveries() })],
	['GET', '/emails', (control) => ({ items: control.emails() })],
	['GET', '/events', (control) => ({ items: control.events() })],
	['GET', '/invites', (control) => ({ items: control.invites() })],
	['POST', '/invites/:id/use', (control, [id], body) => control.useInvite(id, fields(body))],
	[
		'POST',
		'/webhook-targets',
		(control, _params, body) => control.setInsecureWebhookTargets(fields(body)),
	],
	['POST', '/calendar', (control, _params, body) => control.setCalendar(fields(body))],
	['POST', '/slot-day-zone', (control, _params, body) => control.setSlotDayZone(fields(body))],
];

/**
 * Serves one /_control request. Bodies are JSON (any content type); a method with no result answers
 * 204.
 */
export async function handleControl(
	control: SimulatorControl,
	method: string,
	path: string,
	rawBody: Buffer,
): Promise<Reply> {
	for (const [routeMethod, pattern, handler] of CONTROL_ROUTES) {
		const params = matchControlPath(pattern, path);
		if (params === undefined || routeMethod !== method) continue;
		let body: unknown;
		try {
			body = rawBody.length === 0 ? {} : JSON.parse(rawBody.toString('utf8'));
		} catch {
			return { status: 400, body: errorEnvelope('validation_failed', 'The body must be JSON.') };
		}
		try {
			const result = await handler(control, params, body);
			return result === undefined ? { status: 204 } : { status: 200, body: result };
		} catch (error) {
			if (error instanceof ControlError || error instanceof ApiError) {
				return { status: error.status, body: errorEnvelope(error.code, error.message) };
			}
			// A simulator bug: say what broke, so the test that hit it can report it.
			console.error('[simulator] control operation failed:', error);
			return { status: 500, body: errorEnvelope('internal_error', String(error)) };
		}
	}
	return {
		status: 404,
		body: errorEnvelope('not_found', `No control operation ${method} /_control${path}.`),
	};
}

function matchControlPath(pattern: string, path: string): string[] | undefined {
	const patternParts = pattern.split('/');
	const pathParts = path.split('/');
	if (patternParts.length !== pathParts.length) return undefined;
	const params: string[] = [];
	for (const [index, part] of patternParts.entries()) {
		if (part.startsWith(':')) params.push(pathParts[index]);
		else if (part !== pathParts[index]) return undefined;
	}
	return params;
}
