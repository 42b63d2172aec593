// Contract, GET /event-types: the seeded catalogue, the active filter, page size limits and
// cursors.
import { beforeAll, describe, expect, it } from 'vitest';
import { call, listAll } from './support/client.ts';
import { useSimulator } from './support/fixtures.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';

const sim = useSimulator();
let schemas: SchemaChecker;
beforeAll(async () => {
	schemas = await loadSchemas(sim());
});

describe('GET /event-types', () => {
	it('lists active event types by default, in the app’s order, each conforming to EventType', async () => {
		const response = await call(sim(), 'GET', '/event-types');
		expect(response.status).toBe(200);
		schemas.expect('EventTypePage', response.body);
		expect(response.body.nextCursor).toBeNull();
		expect(response.body.items.map((eventType: { slug: string }) => eventType.slug)).toEqual([
			'intro-call',
			'project-sync',
			'phone-consultation',
			'studio-session',
			'career-coaching',
			'language-lesson',
		]);
		expect(response.body.items.every((eventType: { active: boolean }) => eventType.active)).toBe(
			true,
		);
	});

	it('lists only inactive ones with active=false, and refuses other values', async () => {
		const inactive = await call(sim(), 'GET', '/event-types?active=false');
		expect(inactive.body.items.map((eventType: { slug: string }) => eventType.slug)).toEqual([
			'legacy-workshop',
		]);
		expect((await call(sim(), 'GET', '/event-types?active=true')).body.items).toHaveLength(6);
		for (const value of ['yes', 'TRUE', '1', '']) {
			const response = await call(sim(), 'GET', `/event-types?active=${value}`);
			expect(response.status, value).toBe(400);
			expect(response.body.error.details[0].field).toBe('active');
		}
	});

	it('seeds every visibility, price form, location kind and name language', async () => {
		const all = sim().control.eventTypes();
		const bySlug = Object.fromEntries(all.map((eventType) => [eventType.slug, eventType]));
		expect(bySlug['phone-consultation'].visibility).toBe('invite_only');
		expect(bySlug['intro-call'].visibility).toBe('public');
		expect(bySlug['legacy-workshop'].active).toBe(false);
		expect(bySlug['studio-session'].price).toEqual({ amount: 5000, currency: 'JPY' });
		expect(bySlug['career-coaching'].price).toEqual({ amount: 4500, currency: 'USD' });
		expect(bySlug['language-lesson'].payOnArrival).toBe(true);
		expect(new Set(all.map((eventType) => eventType.locationKind))).toEqual(
			new Set(['google_meet', 'teams', 'phone', 'in_person', 'custom']),
		);
		// name resolves to the account locale (en), falling back to the other language.
		expect(bySlug['intro-call']).toMatchObject({
			name: 'Intro call',
			nameI18n: { en: 'Intro call', ja: '初回相談' },
		});
		expect(bySlug['studio-session']).toMatchObject({
			name: 'スタジオ撮影',
			nameI18n: { ja: 'スタジオ撮影' },
		});
		expect(bySlug['phone-consultation'].nameI18n).toEqual({ en: 'Phone consultation' });
		for (const eventType of all) schemas.expect('EventType', eventType);
	});

	it.each([
		['1', 200],
		['100', 200],
		['50', 200],
		['0', 400],
		['101', 400],
		['-1', 400],
		['1.5', 400],
		['ten', 400],
		['', 400],
	])('limit=%s → %i', async (limit, status) => {
		const response = await call(sim(), 'GET', `/event-types?limit=${limit}`);
		expect(response.status).toBe(status);
		if (status === 400)
			expect(response.body.error.details).toEqual([
				{ field: 'limit', message: expect.any(String) },
			]);
	});

	it('pages with limit=1 through every item once, in order', async () => {
		const { items, pages } = await listAll(sim(), '/event-types?limit=1');
		expect(pages).toBe(6);
		expect(items.map((eventType) => eventType.slug)).toEqual(
			(await call(sim(), 'GET', '/event-types')).body.items.map(
				(eventType: { slug: string }) => eventType.slug,
			),
		);
	});

	it('refuses a cursor it did not make, or one made for another query', async () => {
		const garbage = await call(sim(), 'GET', '/event-types?cursor=not-a-cursor');
		expect(garbage.status).toBe(400);
		expect(garbage.body.error.details[0].field).toBe('cursor');
		const first = await call(sim(), 'GET', '/event-types?limit=1');
		const mismatched = await call(
			sim(),
			'GET',
			`/event-types?active=false&cursor=${first.body.nextCursor}`,
		);
		expect(mismatched.status).toBe(400);
		expect(mismatched.body.error.details[0].field).toBe('cursor');
	});

	it('refuses a repeated query parameter', async () => {
		const response = await call(sim(), 'GET', '/event-types?limit=1&limit=2');
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].field).toBe('limit');
	});
});
