/**
 * The editor-side pieces through n8n's own contexts: the event type search of the resource locators, the time zone
 * list, and the credential's test request and authentication, resolved by n8n's expression engine.
 */
import { describe, expect, it } from 'vitest';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials.ts';
import { searchEventTypes } from '../../nodes/BookingService/methods/listSearch.ts';
import { getTimeZones } from '../../nodes/BookingService/methods/loadOptions.ts';
import {
	bookingServiceNode,
	createLoadOptionsContext,
	resolveCredentialExpression,
	TestCredentialsHelper,
} from '../harness/engine.ts';
import { credentialsFor, useTestSimulator } from '../harness/fixtures.ts';

const sim = useTestSimulator({}, { beforeEachTest: 'nothing' });

describe('Event type search (resource locator "From List")', () => {
	it('lists the active event types in app order, searchable by name, Japanese name or slug', async () => {
		const context = await createLoadOptionsContext(
			bookingServiceNode('Book', { resource: 'booking', operation: 'create' }),
			credentialsFor(sim, 'readOnly'),
		);
		const all = await searchEventTypes.call(context);
		const byJapaneseName = await searchEventTypes.call(context, '初回');
		const bySlug = await searchEventTypes.call(context, 'PROJECT-sync');

		const active = sim.control.eventTypes().filter((eventType) => eventType.active);
		expect(all.results.map((result) => result.value)).toEqual(
			active.map((eventType) => eventType.id),
		);
		expect(all.results[0].name).toMatch(/\(\d+ min\)$/);
		expect(byJapaneseName.results.map((result) => result.value)).toEqual([
			sim.control.eventType('intro-call').id,
		]);
		expect(bySlug.results.map((result) => result.value)).toEqual([
			sim.control.eventType('project-sync').id,
		]);
	});
});

describe('Time zones', () => {
	it('offers UTC first, then every IANA zone Node.js knows', async () => {
		const context = await createLoadOptionsContext(
			bookingServiceNode('Book', {}),
			credentialsFor(sim),
		);
		const zones = await getTimeZones.call(context);

		expect(zones[0]).toEqual({ name: 'UTC', value: 'UTC' });
		expect(zones).toContainEqual({ name: 'America/New York', value: 'America/New_York' });
		expect(zones.length).toBeGreaterThan(300);
	});
});

describe('Credential', () => {
	const credentialType = new BookingServiceApi();

	async function runCredentialTest(data: { apiKey: string; baseUrl: string }) {
		const request = credentialType.test.request;
		const baseURL = resolveCredentialExpression(request.baseURL, data) as string;
		const authenticated = await new TestCredentialsHelper({}).authenticate(
			data,
			'bookingServiceApi',
			{
				url: `${baseURL}${request.url}`,
				method: request.method,
				headers: {},
			},
		);
		const response = await fetch(authenticated.url, {
			headers: authenticated.headers as Record<string, string>,
		});
		const rule = credentialType.test.rules?.find(
			(candidate) =>
				candidate.type === 'responseCode' && candidate.properties.value === response.status,
		);
		return { baseURL, status: response.status, message: rule?.properties.message };
	}

	it('tests GET /me, tolerating trailing slashes on the Base URL', async () => {
		const result = await runCredentialTest({
			apiKey: sim.apiKeys.readOnly,
			baseUrl: `${sim.baseUrl}//`,
		});

		expect(result.baseURL).toBe(sim.baseUrl);
		expect(result.status).toBe(200);
	});

	it('a wrong key gets a message a user can act on', async () => {
		const result = await runCredentialTest({ apiKey: 'bsk_wrong', baseUrl: sim.baseUrl });

		expect(result.status).toBe(401);
		expect(result.message).toMatch(/wrong, revoked or incomplete.*create a new one/);
	});

	it('a Base URL without /v1 gets a message about the Base URL', async () => {
		const result = await runCredentialTest({
			apiKey: sim.apiKeys.readOnly,
			baseUrl: sim.baseUrl.replace(/\/v1$/, ''),
		});

		expect(result.status).toBe(404);
		expect(result.message).toMatch(/including the version prefix/);
	});

	it('authenticates with exactly "Bearer <key>", a pasted key trimmed', async () => {
		const authenticated = await new TestCredentialsHelper({}).authenticate(
			{ apiKey: `  ${sim.apiKeys.readOnly}\n`, baseUrl: sim.baseUrl },
			'bookingServiceApi',
			{ url: `${sim.baseUrl}/me`, headers: {} },
		);

		expect(authenticated.headers).toEqual({ Authorization: `Bearer ${sim.apiKeys.readOnly}` });
	});
});
