// Contract, Versioning 3: the OpenAPI 3.1 document at {base_url}/openapi.json, version 1.0.0, no
// token, all shown operations with their declared error statuses, and the four webhook payloads.
import { describe, expect, it } from 'vitest';
import { call } from './support/client.ts';
import { useSimulator } from './support/fixtures.ts';

const sim = useSimulator();

describe('GET /openapi.json', () => {
	it('is OpenAPI 3.1, document version 1.0.0, served without a token', async () => {
		const response = await call(sim(), 'GET', '/openapi.json', { key: null });
		expect(response.status).toBe(200);
		expect(response.body.openapi).toMatch(/^3\.1\./);
		expect(response.body.info.version).toBe('1.0.0');
		expect(response.body.servers).toEqual([{ url: sim().baseUrl }]);
		expect(response.body.components.securitySchemes.bearerAuth).toMatchObject({
			type: 'http',
			scheme: 'bearer',
		});
	});

	it('describes the ten shown operations, each declaring 400, 401, 403, 404, 409 and 429', async () => {
		const document = (await call(sim(), 'GET', '/openapi.json', { key: null })).body;
		const operations = Object.entries(document.paths).flatMap(([path, item]) =>
			Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`),
		);
		expect(operations.sort()).toEqual(
			[
				'GET /me',
				'GET /event-types',
				'GET /event-types/{id}/slots',
				'GET /bookings',
				'POST /bookings',
				'GET /bookings/{id}',
				'POST /bookings/{id}/cancel',
				'POST /invites',
				'POST /webhooks',
				'DELETE /webhooks/{id}',
			].sort(),
		);
		for (const item of Object.values(document.paths) as Array<
			Record<string, { responses: object }>
		>) {
			for (const operation of Object.values(item)) {
				expect(Object.keys(operation.responses)).toEqual(
					expect.arrayContaining(['400', '401', '403', '404', '409', '429']),
				);
			}
		}
	});

	it('describes the four webhook payloads', async () => {
		const document = (await call(sim(), 'GET', '/openapi.json', { key: null })).body;
		expect(Object.keys(document.webhooks).sort()).toEqual([
			'booking.cancelled',
			'booking.created',
			'booking.no_show',
			'booking.rescheduled',
		]);
		const rescheduled = document.components.schemas.BookingRescheduledEvent;
		expect(rescheduled.properties.data.required).toEqual(['booking', 'previous']);
		expect(rescheduled.properties.apiVersion.const).toBe('v1');
	});
});
