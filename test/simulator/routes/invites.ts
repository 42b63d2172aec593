/** POST /invites: a single-use booking link for a public or invite-only event type. */
import { ApiError, notFound } from '../errors.ts';
import { inviteResource } from '../resources.ts';
import { ObjectReader, Problems, checks, parseJsonObjectBody } from '../validation.ts';
import type { Route } from './route.ts';

const DAY_MS = 86_400_000;

export const createInvite: Route = {
	operation: 'createInvite',
	method: 'POST',
	pattern: '/invites',
	handle: ({ sim, headers, rawBody }) => {
		const body = parseJsonObjectBody(headers['content-type'], rawBody);
		const problems = new Problems();
		const reader = new ObjectReader(problems, body);
		reader.onlyFields(['eventTypeId', 'name', 'email', 'expiresInDays']);
		const eventTypeId = reader.string('eventTypeId', { required: true, check: checks.id });
		const name = reader.string('name', { max: 120 });
		const email = reader.string('email', { max: 254, check: checks.email });
		const expiresInDays = reader.integer('expiresInDays', { min: 1, max: 90 }) ?? 14;
		problems.throwIfAny();
		const { store } = sim;
		const eventType = store.eventType(eventTypeId!);
		if (eventType === undefined) throw notFound('Event type');
		if (!eventType.active)
			throw new ApiError('event_type_inactive', `Event type ${eventType.id} is not active.`);
		const nowMs = sim.clock.now();
		const invite = {
			id: store.ids.id(),
			eventTypeId: eventType.id,
			token: store.ids.hex(32),
			name: name ?? null,
			email: email ?? null,
			expiresAtMs: nowMs + expiresInDays * DAY_MS,
			usedAtMs: null,
			bookingId: null,
			createdAtMs: nowMs,
		};
		store.invites.set(invite.id, invite);
		return { status: 201, body: inviteResource(store, invite, true) };
	},
};
