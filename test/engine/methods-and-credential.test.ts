/**
 * The editor-side pieces through n8n's own contexts: the event type search of the resource locators, the time zone
 * list, the credential's Test button (the nodes' credential test method) and its authentication.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ICredentialTestFunctions, INodePropertyOptions, INodeType } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials.ts';
import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';
import { searchBookings, searchEventTypes } from '../../nodes/BookingService/methods/listSearch.ts';
import { getTimeZones } from '../../nodes/BookingService/methods/loadOptions.ts';
import {
	bookingServiceNode,
	createLoadOptionsContext,
	createNodeTypes,
	TestCredentialsHelper,
} from '../harness/engine.ts';
import { credentialsFor, minuteInZone, requestsTo, useTestSimulator } from '../harness/fixtures.ts';

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

	it("shows each start in the node's Time Zone option, else in the booking's host zone, naming the zone; the status as a word", async () => {
		const target = sim.control.bookings().find((booking) => booking.status === 'no_show')!;
		expect(target.hostTimezone).toBe('Asia/Tokyo');
		const inZone = (timeZone: string) => minuteInZone(target.start, timeZone);
		const entry = async (parameters: Record<string, unknown>) => {
			const context = await createLoadOptionsContext(
				bookingServiceNode('Cancel', { resource: 'booking', operation: 'cancel', ...parameters }),
				credentialsFor(sim, 'readOnly'),
			);
			const { results } = await searchBookings.call(context, target.booker.email);
			return results.find((result) => result.value === target.id)?.name;
		};
		const cases: Array<[string, string]> = [
			['Pacific/Auckland', 'Auckland'],
			['Europe/Berlin', 'Berlin'],
			['America/New_York', 'New York'],
			['UTC', 'UTC'],
		];
		for (const [timeZone, label] of cases) {
			expect(await entry({ options: { timeZone: timeZone.toLowerCase() } })).toBe(
				`${target.booker.name} · ${target.eventType.name} · ${inZone(timeZone)} ${label} · No-Show`,
			);
		}
		// No zone in the node (or an expression, which a list cannot evaluate): n8n gives a list search no workflow
		// settings, so its own zone would be the instance default; the host's zone is the one the app shows, named.
		for (const options of [{}, { timeZone: "={{ $json['Time zone'] }}" }]) {
			expect(await entry({ options })).toBe(
				`${target.booker.name} · ${target.eventType.name} · ${inZone('Asia/Tokyo')} Tokyo · No-Show`,
			);
		}
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

describe('Subtitle on the canvas', () => {
	it('names the operation and resource as the panel shows them, for every pair, as the editor evaluates it', () => {
		const node = new BookingService();
		const resources = node.description.properties.find((property) => property.name === 'resource')!;
		const pairs: Array<[string, string, string]> = [];
		for (const resource of resources.options as INodePropertyOptions[]) {
			const operations = node.description.properties.find(
				(property) =>
					property.name === 'operation' &&
					(property.displayOptions?.show?.resource ?? []).includes(resource.value as string),
			)!;
			for (const operation of operations.options as INodePropertyOptions[]) {
				pairs.push([String(resource.value), String(operation.value), `${operation.name}: ${resource.name}`]);
			}
		}
		// What the canvas shows: the description's subtitle, evaluated by n8n's expression engine for the node.
		const shown = pairs.map(([resource, operation]) => {
			const instance = bookingServiceNode('Booking Service', { resource, operation });
			const workflow = new Workflow({ nodes: [instance], connections: {}, active: false, nodeTypes: createNodeTypes() });
			return workflow.expression.getSimpleParameterValue(instance, node.description.subtitle!, 'internal', {});
		});
		expect(shown).toEqual(pairs.map(([, , expected]) => expected));
		expect(shown).toContain('Get Available Slots: Event Type');
		expect(pairs).toHaveLength(10);
	});
});

describe('Credential', () => {
	// n8n finds the Test button's method as credentials-tester.service does: a node listing the credential with
	// `testedBy`, then that name in the node's `methods.credentialTest`.
	const nodeTypes = [new BookingService(), new BookingServiceTrigger(), new BookingServicePollingTrigger()];
	const testFunctionOf = (node: INodeType) => {
		const entry = node.description.credentials?.find((credential) => credential.name === 'bookingServiceApi');
		const testedBy = entry?.testedBy;
		expect(typeof testedBy, node.description.name).toBe('string');
		const method = node.methods?.credentialTest?.[testedBy as string];
		expect(method, node.description.name).toBeTypeOf('function');
		return method!;
	};
	const test = async (data: { apiKey: string; baseUrl: string }) =>
		await testFunctionOf(nodeTypes[0]).call({} as ICredentialTestFunctions, {
			id: 'c',
			name: 'Booking Service',
			type: 'bookingServiceApi',
			data,
		});

	it('every node that uses the credential tests it with the same method, and the credential has no test of its own', () => {
		const methods = nodeTypes.map(testFunctionOf);
		expect(new Set(methods).size).toBe(1);
		// n8n runs a credential's own `test` before any node's method; it must not have one.
		expect(new BookingServiceApi()).not.toHaveProperty('test');
	});

	it('passes with a good key, sending GET /me with "Bearer <key>" (a pasted key trimmed, trailing slashes ignored)', async () => {
		sim.control.clearRequests();
		expect(await test({ apiKey: ` ${sim.apiKeys.readOnly}\n`, baseUrl: `${sim.baseUrl}//` })).toEqual({
			status: 'OK',
			message: 'Connection tested successfully',
		});
		expect(requestsTo(sim).map(({ method, path, status }) => ({ method, path, status }))).toEqual([
			{ method: 'GET', path: '/v1/me', status: 200 },
		]);
	});

	it.each<[string, { apiKey?: string; baseUrl?: string }, RegExp]>([
		['a wrong key', { apiKey: 'bsk_wrong' }, /^The Booking Service rejected the API key: it is wrong, revoked or incomplete\. Create a new key in the app .* paste it into the API Key of the Booking Service API credential\.$/],
		['a Base URL without /v1', { baseUrl: 'no-v1' }, /^The Base URL "http:\/\/127\.0\.0\.1:\d+" in the Booking Service API credential must end with the version prefix \/v1, e\.g\. https:\/\/api\.example\.com\/v1\.$/],
		['a wrong path before /v1', { baseUrl: 'api-v1' }, /^Nothing was found at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/me \(HTTP 404\)\. The Base URL in the Booking Service API credential must be the service's base URL including the version prefix \/v1, e\.g\. https:\/\/api\.example\.com\/v1\.$/],
		['plain http to another host', { baseUrl: 'http://bookings.example.com/v1' }, /^The Base URL in the Booking Service API credential must start with https:\/\/; http:\/\/ is only for a local simulator .*unencrypted\.$/],
		['an address without its scheme', { baseUrl: '127.0.0.1:5680/v1' }, /^The Base URL "127\.0\.0\.1:5680\/v1" in the Booking Service API credential must start with https:\/\/ .* e\.g\. https:\/\/api\.example\.com\/v1\.$/],
		['a port nothing listens on', { baseUrl: 'closed-port' }, /^Nothing accepts connections at 127\.0\.0\.1:\d+ \(connection refused\)\. Check the host and port in the Base URL of the Booking Service API credential, and that the service is running\.$/],
		['an unknown host', { baseUrl: 'https://bookings.invalid/v1' }, /^The host name "bookings\.invalid" in the Base URL of the Booking Service API credential was not found\. Check its spelling/],
		['https to an http service', { baseUrl: 'https' }, /^127\.0\.0\.1:\d+ does not speak https\. Check the Base URL/],
		['an empty key', { apiKey: '  ' }, /^The API Key is empty\. Create a new key in the app/],
	])('fails with a sentence saying what to change: %s', async (_case, change, sentence) => {
		const closedPort = `http://127.0.0.1:${await unusedPort()}/v1`;
		const baseUrls: Record<string, string> = {
			'no-v1': sim.baseUrl.replace(/\/v1$/, ''),
			'api-v1': sim.baseUrl.replace(/\/v1$/, '/api/v1'),
			'closed-port': closedPort,
			https: sim.baseUrl.replace('http://', 'https://'),
		};
		const baseUrl = change.baseUrl === undefined ? sim.baseUrl : (baseUrls[change.baseUrl] ?? change.baseUrl);
		const apiKey = change.apiKey ?? sim.apiKeys.readOnly;
		const result = await test({ apiKey, baseUrl });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(sentence);
		expect(result.message.includes(sim.apiKeys.readOnly)).toBe(false);
	});

	it('authenticates node requests with exactly "Bearer <key>", a pasted key trimmed', async () => {
		const authenticated = await new TestCredentialsHelper({}).authenticate(
			{ apiKey: `  ${sim.apiKeys.readOnly}\n`, baseUrl: sim.baseUrl },
			'bookingServiceApi',
			{ url: `${sim.baseUrl}/me`, headers: {} },
		);

		expect(authenticated.headers).toEqual({ Authorization: `Bearer ${sim.apiKeys.readOnly}` });
	});
});

/** A loopback port with nothing listening: bound, then released. */
async function unusedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}
