// Contract, POST /invites: single-use booking links for public and invite-only types, expiry 1–90
// days (default 14), the url shown only in the creation response, used once and then stopping.
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { eventTypeId, freeSlots, useSimulator } from './support/fixtures.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';

const sim = useSimulator();
let schemas: SchemaChecker;
beforeAll(async () => {
	schemas = await loadSchemas(sim());
});

const DAY = 86_400_000;

async function invite(body: Record<string, unknown>) {
	return call(sim(), 'POST', '/invites', { json: body });
}

describe('POST /invites', () => {
	it('creates an unused link with its url, expiring in 14 days by default', async () => {
		const now = Date.parse(sim().control.now().now);
		const response = await invite({
			eventTypeId: eventTypeId(sim(), 'phone-consultation'),
			name: 'Kim',
			email: 'kim@example.com',
		});
		expect(response.status).toBe(201);
		schemas.expect('InviteLink', response.body);
		expect(response.body).toMatchObject({
			eventTypeId: eventTypeId(sim(), 'phone-consultation'),
			name: 'Kim',
			email: 'kim@example.com',
			usedAt: null,
			bookingId: null,
		});
		expect(response.body.url).toMatch(/^https:\/\//);
		const lifetime = Date.parse(response.body.expiresAt) - Date.parse(response.body.createdAt);
		expect(lifetime).toBe(14 * DAY);
		expect(Date.parse(response.body.createdAt)).toBeGreaterThanOrEqual(now);
	});

	it('shows the url nowhere after creation', async () => {
		const response = await invite({ eventTypeId: eventTypeId(sim(), 'intro-call') });
		expect(response.body).toMatchObject({ name: null, email: null });
		const later = sim()
			.control.invites()
			.find((candidate) => candidate.id === response.body.id)!;
		expect(later.url).toBeNull();
		expect({ ...later, url: response.body.url }).toEqual(response.body);
	});

	it.each([
		[1, 201],
		[90, 201],
		[0, 400],
		[91, 400],
		[1.5, 400],
		['7', 400],
	])('expiresInDays=%s → %i', async (expiresInDays, status) => {
		const response = await invite({ eventTypeId: eventTypeId(sim(), 'intro-call'), expiresInDays });
		expect(response.status).toBe(status);
		if (status === 201) {
			expect(Date.parse(response.body.expiresAt) - Date.parse(response.body.createdAt)).toBe(
				Number(expiresInDays) * DAY,
			);
		} else {
			expect(response.body.error.details).toEqual([
				{ field: 'expiresInDays', message: expect.any(String) },
			]);
		}
	});

	it.each([
		['name of 120 characters', { name: 'n'.repeat(120) }, 201, undefined],
		['name of 121 characters', { name: 'n'.repeat(121) }, 400, 'name'],
		[
			'email of 254 characters',
			{ email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com` },
			201,
			undefined,
		],
		[
			'email of 255 characters',
			{ email: `${'a'.repeat(65)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com` },
			400,
			'email',
		],
		['email without a domain', { email: 'kim@' }, 400, 'email'],
		['eventTypeId missing', { eventTypeId: undefined }, 400, 'eventTypeId'],
		['an unknown field', { url: 'https://example.com' }, 400, 'url'],
	])('%s → %i', async (_name, overrides, status, field) => {
		const response = await invite({ eventTypeId: eventTypeId(sim(), 'intro-call'), ...overrides });
		expect(response.status).toBe(status);
		if (field !== undefined)
			expect(response.body.error.details).toEqual([{ field, message: expect.any(String) }]);
	});

	it('answers 409 event_type_inactive for an inactive type', async () => {
		const response = await invite({ eventTypeId: eventTypeId(sim(), 'legacy-workshop') });
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('event_type_inactive');
	});
});

describe('using a link (through the control interface: the invitee books on the booking page)', () => {
	it('works once, then stops', async () => {
		const created = (
			await invite({
				eventTypeId: eventTypeId(sim(), 'phone-consultation'),
				name: 'Once',
				email: 'once@example.com',
			})
		).body;
		const [first, second] = await freeSlots(sim(), 'phone-consultation');
		const booking = sim().control.useInvite(created.id, { start: first });
		expect(booking).toMatchObject({
			status: 'confirmed',
			booker: { name: 'Once', email: 'once@example.com' },
			source: 'public',
		});
		expect(
			sim()
				.control.invites()
				.find((candidate) => candidate.id === created.id),
		).toMatchObject({
			bookingId: booking.id,
			usedAt: expect.any(String),
		});
		expect(() => sim().control.useInvite(created.id, { start: second })).toThrow(/already used/);
	});

	it('stops working at expiresAt', async () => {
		const created = (
			await invite({ eventTypeId: eventTypeId(sim(), 'intro-call'), expiresInDays: 1 })
		).body;
		await sim().control.advanceClock(86_400);
		const [start] = await freeSlots(sim(), 'intro-call');
		const response = await fetch(`${sim().controlUrl}/invites/${created.id}/use`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ start }),
		});
		expect(response.status).toBe(409);
		expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
			'invite_expired',
		);
	});
});
