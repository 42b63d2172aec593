/**
 * The editor-side pieces through n8n's own contexts: the event type search of the resource locators, the time zone
 * list, and the credential's test request and authentication, resolved by n8n's expression engine.
 */
import { describe, expect, it } from 'vitest';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials.ts';
import { searchBookings, searchEventTypes } from '../../nodes/BookingService/methods/listSearch.ts';
import { getTimeZones } from '../../nodes/BookingService/methods/loadOptions.ts';
import {
	bookingServiceNode,
	createLoadOptionsContext,
	resolveCredentialExpression,
	TestCredentialsHelper,
} from '../harness/engine.ts';
import { credentialsFor, requestsTo, useTestSimulator } from '../harness/fixtures.ts';

const sim = useTestSimulator({}, { beforeEachTest: 'nothing' });

describe('Booking search (resource locator "From List" of Get and Cancel)', () => {
	const context = async () =>
		await createLoadOptionsContext(
			bookingServiceNode('Get', { resource: 'booking', operation: 'get' }),
			credentialsFor(sim, 'readOnly'),
		);

	it('lists the most recently made bookings a page at a time, newest first, paging with the service cursor', async () => {
		sim.control.clearRequests();
		const first = await searchBookings.call(await context());
		const listed = sim.control.bookings().filter((booking) => !['held', 'awaiting_payment'].includes(booking.status));
		const newest = [...listed].sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
		expect(first.results.map((result) => result.value)).toEqual(newest.slice(0, 100).map((booking) => booking.id));
		expect(first.results[0].name).toContain(newest[0].booker.name);
		expect(first.results[0].url).toBe(newest[0].manageUrl);
		expect(requestsTo(sim, '/bookings')[0].query).toMatchObject({ sort: '-createdAt', limit: '100' });
		if (listed.length > 100) {
			expect(first.paginationToken).toEqual(expect.any(String));
			const second = await searchBookings.call(await context(), undefined, first.paginationToken);
			expect(second.results[0].value).toBe(newest[100].id);
		}
	});

	it("shows each start as wall-clock time in the node's zone (or n8n's) with its offset, and the status as a word", async () => {
		const target = sim.control.bookings().find((booking) => booking.status === 'no_show')!;
		const inZone = (timeZone: string) =>
			new Intl.DateTimeFormat('sv-SE', {
				timeZone,
				year: 'numeric',
				month: '2-digit',
				day: '2-digit',
				hour: '2-digit',
				minute: '2-digit',
				hourCycle: 'h23',
			}).format(new Date(target.start));
		const entry = async (parameters: Record<string, unknown>) => {
			const context = await createLoadOptionsContext(
				bookingServiceNode('Cancel', { resource: 'booking', operation: 'cancel', ...parameters }),
				credentialsFor(sim, 'readOnly'),
			);
			const { results } = await searchBookings.call(context, target.booker.email);
			return results.find((result) => result.value === target.id)?.name;
		};
		const offset = (timeZone: string) =>
			new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'shortOffset' })
				.formatToParts(new Date(target.start))
				.find((part) => part.type === 'timeZoneName')!
				.value.replace('GMT', 'UTC');
		for (const timeZone of ['Pacific/Auckland', 'Asia/Kolkata', 'America/New_York']) {
			expect(await entry({ options: { timeZone: timeZone.toLowerCase() } })).toBe(
				`${target.booker.name} · ${target.eventType.name} · ${inZone(timeZone)} ${offset(timeZone)} · No-Show`,
			);
		}
		// No zone in the node: n8n's zone for the context (the harness workflow's UTC); an expression is not guessed at.
		expect(await entry({ options: { timeZone: "={{ $json['Time zone'] }}" } })).toBe(
			`${target.booker.name} · ${target.eventType.name} · ${inZone('UTC')} UTC · No-Show`,
		);
	});

	it('an email is passed to the service filter; other text matches booker name or event type in the page', async () => {
		const target = sim.control.bookings().find((booking) => booking.status === 'confirmed')!;
		sim.control.clearRequests();
		const byEmail = await searchBookings.call(await context(), target.booker.email.toUpperCase());
		expect(byEmail.results.map((result) => result.value)).toContain(target.id);
		expect(requestsTo(sim, '/bookings')[0].query.email).toBe(target.booker.email.toUpperCase());

		const byName = await searchBookings.call(await context(), target.booker.name.slice(0, 4).toLowerCase());
		expect(byName.results.map((result) => result.value)).toContain(target.id);
		const byNothing = await searchBookings.call(await context(), 'no booker is called this');
		expect(byNothing.results).toEqual([]);
	});
});

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
