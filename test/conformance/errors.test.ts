// Contract, Errors and conventions: the envelope on every error, validation_failed with details
// naming each field (including writes without the JSON content type), not_found, and the triggers
// the simulator chose for the codes whose trigger is not shown (bad_request, internal_error; the
// others have their own files).
import { describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { bookingBody, eventTypeId, useSimulator } from './support/fixtures.ts';

const sim = useSimulator();

function expectEnvelope(body: any, code: string) {
	expect(Object.keys(body)).toEqual(['error']);
	expect(body.error.code).toBe(code);
	expect(typeof body.error.message).toBe('string');
	expect(body.error.message.length).toBeGreaterThan(0);
	for (const key of Object.keys(body.error)) expect(['code', 'message', 'details']).toContain(key);
}

describe('validation_failed', () => {
	it('names every bad field in details, as an array of { field, message }', async () => {
		const response = await call(sim(), 'POST', '/bookings', {
			json: {
				start: '2030-01-08T01:00:00',
				booker: { email: 'not-an-email', locale: 'fr' },
				surprise: true,
			},
		});
		expect(response.status).toBe(400);
		expectEnvelope(response.body, 'validation_failed');
		const fields = response.body.error.details.map((detail: { field: string }) => detail.field);
		expect(fields.sort()).toEqual(
			[
				'surprise',
				'eventTypeId',
				'start',
				'booker.name',
				'booker.email',
				'booker.timezone',
				'booker.locale',
			].sort(),
		);
		for (const detail of response.body.error.details) {
			expect(Object.keys(detail).sort()).toEqual(['field', 'message']);
			expect(typeof detail.message).toBe('string');
		}
	});

	it.each([
		['no content type', undefined],
		['text/plain', 'text/plain'],
		['form encoding', 'application/x-www-form-urlencoded'],
		['a JSON-ish but different type', 'application/jsonp'],
	])('refuses a write with %s without parsing the body', async (_name, contentType) => {
		const id = eventTypeId(sim(), 'intro-call');
		const response = await call(sim(), 'POST', '/bookings', {
			raw: JSON.stringify(bookingBody(id, '2030-01-08T01:00:00.000Z')),
			headers: contentType === undefined ? {} : { 'content-type': contentType },
		});
		expect(response.status).toBe(400);
		expectEnvelope(response.body, 'validation_failed');
		expect(response.body.error.details).toEqual([{ field: 'body', message: expect.any(String) }]);
	});

	it('accepts the JSON content type with a charset parameter', async () => {
		const response = await call(sim(), 'POST', '/invites', {
			raw: JSON.stringify({ eventTypeId: eventTypeId(sim(), 'intro-call') }),
			headers: { 'content-type': 'Application/JSON; charset=utf-8' },
		});
		expect(response.status).toBe(201);
	});

	it('refuses a body that is JSON but not an object, or is empty', async () => {
		for (const raw of ['[]', '"text"', 'null', '42', '']) {
			const response = await call(sim(), 'POST', '/invites', {
				raw,
				headers: { 'content-type': 'application/json' },
			});
			expect(response.status, raw).toBe(400);
			expectEnvelope(response.body, 'validation_failed');
			expect(response.body.error.details[0].field).toBe('body');
		}
	});

	it('refuses invalid query parameters with details naming them', async () => {
		const response = await call(sim(), 'GET', '/bookings?limit=0&sort=name&startFrom=yesterday');
		expect(response.status).toBe(400);
		expectEnvelope(response.body, 'validation_failed');
		expect(
			response.body.error.details.map((detail: { field: string }) => detail.field).sort(),
		).toEqual(['limit', 'sort', 'startFrom']);
	});

	it('refuses a path id that is not 24 lowercase hex characters (the simulator’s choice)', async () => {
		for (const id of [
			'123',
			'ABCDEF0123456789ABCDEF01',
			'0123456789abcdef0123456g',
			'0123456789abcdef012345678',
		]) {
			const response = await call(sim(), 'GET', `/bookings/${id}`);
			expect(response.status, id).toBe(400);
			expectEnvelope(response.body, 'validation_failed');
			expect(response.body.error.details).toEqual([{ field: 'id', message: expect.any(String) }]);
		}
	});
});

describe('not_found', () => {
	it('answers 404 for a well-formed id that does not exist', async () => {
		for (const path of [
			'/bookings/0123456789abcdef01234567',
			'/bookings/0123456789abcdef01234567/cancel',
			'/event-types/0123456789abcdef01234567/slots?from=2030-01-08&to=2030-01-08',
			'/webhooks/0123456789abcdef01234567',
		]) {
			const method = path.endsWith('/cancel')
				? 'POST'
				: path.startsWith('/webhooks')
					? 'DELETE'
					: 'GET';
			const response = await call(sim(), method, path, method === 'POST' ? { json: {} } : {});
			expect(response.status, path).toBe(404);
			expectEnvelope(response.body, 'not_found');
		}
	});

	it('answers 404 for an unknown path or method under /v1', async () => {
		for (const [method, path] of [
			['GET', '/webhooks'],
			['PUT', '/bookings'],
			['PATCH', '/me'],
			['GET', '/bookings/0123456789abcdef01234567/cancel'],
		] as const) {
			const response = await call(sim(), method, path);
			expect(response.status, `${method} ${path}`).toBe(404);
			expectEnvelope(response.body, 'not_found');
		}
	});

	it('answers 404 for an event type id in a body that does not exist', async () => {
		const response = await call(sim(), 'POST', '/invites', {
			json: { eventTypeId: '0123456789abcdef01234567' },
		});
		expect(response.status).toBe(404);
		expectEnvelope(response.body, 'not_found');
	});
});

describe('bad_request and internal_error (triggers chosen by the simulator)', () => {
	it('answers 400 bad_request for a JSON body that does not parse', async () => {
		const response = await call(sim(), 'POST', '/bookings', {
			raw: '{"eventTypeId": ',
			headers: { 'content-type': 'application/json' },
		});
		expect(response.status).toBe(400);
		expectEnvelope(response.body, 'bad_request');
	});

	it('answers 400 bad_request for a body over 1 MiB', async () => {
		const response = await call(sim(), 'POST', '/invites', {
			json: { eventTypeId: eventTypeId(sim(), 'intro-call'), name: 'x'.repeat(1024 * 1024) },
		});
		expect(response.status).toBe(400);
		expectEnvelope(response.body, 'bad_request');
	});

	it('answers 500 internal_error when a fault says so', async () => {
		sim().control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'status', status: 500 });
		const response = await call(sim(), 'GET', '/me');
		expect(response.status).toBe(500);
		expectEnvelope(response.body, 'internal_error');
		expect((await call(sim(), 'GET', '/me')).status).toBe(200);
	});
});

describe('conventions', () => {
	it('answers JSON and ends every time in Z, ids being 24 lowercase hex characters', async () => {
		const response = await call(
			sim(),
			'GET',
			'/bookings?status=held,awaiting_payment,confirmed,cancelled,completed,no_show&limit=100',
		);
		expect(response.headers['content-type']).toMatch(/^application\/json/);
		const text = JSON.stringify(response.body);
		for (const [, value] of text.matchAll(/"(\d{4}-\d{2}-\d{2}T[^"]*)"/g))
			expect(value).toMatch(/Z$/);
		for (const booking of response.body.items) {
			expect(booking.id).toMatch(/^[0-9a-f]{24}$/);
			expect(booking.eventType.id).toMatch(/^[0-9a-f]{24}$/);
		}
	});

	it('has no other top-level paths than /v1 and /_control', async () => {
		const response = await fetch(sim().baseUrl.replace('/v1', '/bookings'));
		expect(response.status).toBe(404);
		expectEnvelope(await response.json(), 'not_found');
	});
});
