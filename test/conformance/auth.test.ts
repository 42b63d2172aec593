// Contract, Authentication: bearer keys, the two permission choices, revoked and malformed keys,
// the WWW-Authenticate header on every 401, scope checks before body validation, cookies ignored.
import { describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { eventTypeId, useSimulator } from './support/fixtures.ts';

const sim = useSimulator();

function expectUnauthorized(response: {
	status: number;
	headers: Record<string, unknown>;
	body: any;
}) {
	expect(response.status).toBe(401);
	expect(response.body.error.code).toBe('unauthorized');
	expect(typeof response.body.error.message).toBe('string');
	expect(response.headers['www-authenticate']).toMatch(
		/^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/[^"]+"$/,
	);
}

describe('API keys', () => {
	it('GET /me works with either key and reports that key’s scopes', async () => {
		const readWrite = await call(sim(), 'GET', '/me');
		expect(readWrite.status).toBe(200);
		expect(readWrite.body.scopes).toEqual([
			'event_types:read',
			'bookings:read',
			'bookings:write',
			'webhooks:manage',
		]);
		const readOnly = await call(sim(), 'GET', '/me', { key: sim().apiKeys.readOnly });
		expect(readOnly.status).toBe(200);
		expect(readOnly.body.scopes).toEqual(['event_types:read', 'bookings:read']);
	});

	it('answers 401 with WWW-Authenticate when the header is missing', async () => {
		expectUnauthorized(await call(sim(), 'GET', '/me', { key: null }));
	});

	it('answers 401 for a wrong key', async () => {
		expectUnauthorized(
			await call(sim(), 'GET', '/me', { key: 'bsk_0000000000000000000000000000000000000000' }),
		);
	});

	it.each([
		['no space after Bearer', (key: string) => `Bearer${key}`],
		['two spaces after Bearer', (key: string) => `Bearer  ${key}`],
		['another scheme', (key: string) => `Basic ${key}`],
		['the key alone', (key: string) => key],
		['a trailing extra token', (key: string) => `Bearer ${key} extra`],
		['an empty token', () => 'Bearer '],
	])('answers 401 for a malformed header: %s', async (_name, header) => {
		const response = await call(sim(), 'GET', '/me', {
			key: null,
			headers: { authorization: header(sim().apiKeys.readWrite) },
		});
		expectUnauthorized(response);
	});

	it('accepts the scheme name in any case (RFC 9110; the simulator’s choice)', async () => {
		const response = await call(sim(), 'GET', '/me', {
			key: null,
			headers: { authorization: `bearer ${sim().apiKeys.readWrite}` },
		});
		expect(response.status).toBe(200);
	});

	it('ignores session cookies entirely', async () => {
		const cookie = `session=${sim().apiKeys.readWrite}; key=${sim().apiKeys.readWrite}`;
		expectUnauthorized(await call(sim(), 'GET', '/me', { key: null, headers: { cookie } }));
		const withKey = await call(sim(), 'GET', '/me', { headers: { cookie: 'session=garbage' } });
		expect(withKey.status).toBe(200);
	});

	it('stops accepting a revoked key on the very next request', async () => {
		const { key } = sim().control.createKey('readWrite');
		expect((await call(sim(), 'GET', '/me', { key })).status).toBe(200);
		sim().control.revokeKey(key);
		expectUnauthorized(await call(sim(), 'GET', '/me', { key }));
	});

	it('revokes keys through the HTTP control interface too', async () => {
		const created = await fetch(`${sim().controlUrl}/keys`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ scopes: 'readOnly' }),
		});
		const { key } = (await created.json()) as { key: string };
		expect((await call(sim(), 'GET', '/me', { key })).body.scopes).toEqual([
			'event_types:read',
			'bookings:read',
		]);
		const revoked = await fetch(`${sim().controlUrl}/keys/revoke`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ key }),
		});
		expect(revoked.status).toBe(204);
		expectUnauthorized(await call(sim(), 'GET', '/me', { key }));
	});

	it('allows at most ten unrevoked keys per account', async () => {
		sim().control.reset();
		const created: string[] = [];
		for (let index = 0; index < 8; index += 1)
			created.push(sim().control.createKey('readOnly').key);
		expect(() => sim().control.createKey('readOnly')).toThrow(/at most 10 keys/);
		sim().control.revokeKey(created[0]);
		expect(sim().control.createKey('readOnly').key).toMatch(/^bsk_/);
		sim().control.reset();
	});

	it('needs no key for the OpenAPI document', async () => {
		const response = await call(sim(), 'GET', '/openapi.json', { key: null });
		expect(response.status).toBe(200);
	});

	it('checks the key before anything else, even on an unknown path', async () => {
		expectUnauthorized(await call(sim(), 'GET', '/nothing-here', { key: null }));
	});
});

describe('scopes', () => {
	const writes = [
		['POST /bookings', 'POST', () => '/bookings', 'bookings:write'],
		[
			'POST /bookings/{id}/cancel',
			'POST',
			() => `/bookings/${sim().control.bookings()[0].id}/cancel`,
			'bookings:write',
		],
		['POST /invites', 'POST', () => '/invites', 'bookings:write'],
		['POST /webhooks', 'POST', () => '/webhooks', 'webhooks:manage'],
		[
			'DELETE /webhooks/{id}',
			'DELETE',
			() => '/webhooks/0123456789abcdef01234567',
			'webhooks:manage',
		],
	] as const;

	it.each(writes)(
		'%s with a read-only key is 403 insufficient_scope naming %s',
		async (_name, method, path, scope) => {
			const response = await call(sim(), method, path(), { key: sim().apiKeys.readOnly, json: {} });
			expect(response.status).toBe(403);
			expect(response.body.error.code).toBe('insufficient_scope');
			expect(response.body.error.message).toContain(scope);
		},
	);

	it.each(writes)(
		'%s checks the scope before the body: an invalid body still gets 403',
		async (_name, method, path) => {
			const response = await call(sim(), method, path(), {
				key: sim().apiKeys.readOnly,
				raw: 'this is not json',
				headers: { 'content-type': 'text/plain' },
			});
			expect(response.status).toBe(403);
			expect(response.body.error.code).toBe('insufficient_scope');
		},
	);

	it('lets a read-only key list event types, read slots and read bookings', async () => {
		const key = sim().apiKeys.readOnly;
		expect((await call(sim(), 'GET', '/event-types', { key })).status).toBe(200);
		const id = eventTypeId(sim(), 'intro-call');
		expect(
			(await call(sim(), 'GET', `/event-types/${id}/slots?from=2030-01-08&to=2030-01-09`, { key }))
				.status,
		).toBe(200);
		expect((await call(sim(), 'GET', '/bookings', { key })).status).toBe(200);
		const bookingId = sim().control.bookings()[0].id;
		expect((await call(sim(), 'GET', `/bookings/${bookingId}`, { key })).status).toBe(200);
	});
});
