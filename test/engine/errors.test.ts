/**
 * What the user reads when the service says no: every error envelope becomes a NodeApiError whose message says what
 * happened and what to do, with the HTTP status in httpCode — and the API key appears nowhere in the run.
 */
import { describe, expect, it } from 'vitest';

import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { n8nLog } from '../harness/n8n-environment.ts';
import type { WorkflowRunResult } from '../harness/engine.ts';
import {
	credentialsFor,
	eventTypeId,
	pathsHolding,
	requestsTo,
	startTestSimulator,
	useTestSimulator,
} from '../harness/fixtures.ts';

const sim = useTestSimulator();

function expectNoSecret(result: WorkflowRunResult, secret: string) {
	expect(pathsHolding(result.run, secret)).toEqual([]);
	expect(pathsHolding(result.run, secret.slice(4))).toEqual([]); // without the bsk_ prefix, too
}

const getAccount = bookingServiceNode('Me', { resource: 'account', operation: 'get' });

describe('401', () => {
	it('a wrong key: says the key was rejected and to create a new one', async () => {
		const wrongKey = `bsk_${'0'.repeat(40)}`;
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials: credentialsFor(sim, wrongKey),
		});

		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '401' });
		expect(result.error!.message).toBe(
			'The Booking Service rejected the API key: it is wrong, revoked or incomplete. Create a new key in the app (Settings → API keys and webhooks) and paste it into the API Key of the Booking Service API credential.',
		);
		expect(result.error!.description).toMatch(/Keys are shown only once/);
		expectNoSecret(result, wrongKey);
	});

	it('a revoked key: the same clear message', async () => {
		const { key } = sim.control.createKey('readWrite');
		sim.control.revokeKey(key);
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials: credentialsFor(sim, key),
		});

		expect(result.error).toMatchObject({ httpCode: '401' });
		expect(result.error!.message).toMatch(/revoked/);
		expectNoSecret(result, key);
	});
});

describe('403', () => {
	it.each([
		[
			'booking create',
			{
				resource: 'booking',
				operation: 'create',
				eventType: { __rl: true, mode: 'id', value: '={{ $json.eventTypeId }}' },
				start: '2026-03-10T10:00:00Z',
				bookerName: 'A',
				bookerEmail: 'a@example.com',
				bookerTimeZone: 'UTC',
			},
			'bookings:write',
		],
		[
			'invite create',
			{
				resource: 'invite',
				operation: 'create',
				eventType: { __rl: true, mode: 'id', value: '={{ $json.eventTypeId }}' },
			},
			'bookings:write',
		],
		[
			'webhook create',
			{
				resource: 'webhookSubscription',
				operation: 'create',
				url: 'https://hooks.example.com/x',
				events: ['*'],
			},
			'webhooks:manage',
		],
	])(
		'%s with a read-only key names the scope and asks for a read-and-write key',
		async (_, parameters, scope) => {
			const result = await runWorkflow({
				nodes: [bookingServiceNode('Write', parameters)],
				startItems: [{ eventTypeId: eventTypeId(sim, 'intro-call') }],
				credentials: credentialsFor(sim, 'readOnly'),
			});

			expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '403' });
			expect(result.error!.message).toBe(
				`The API key lacks the "${scope}" permission this operation needs: use a key with "Read and write"`,
			);
			expect(result.error!.description).toMatch(/"Read and write" permission/);
			expectNoSecret(result, sim.apiKeys.readOnly);
		},
	);
});

describe('404', () => {
	it('an unknown booking: not found, check the ID', async () => {
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode('Get', {
					resource: 'booking',
					operation: 'get',
					bookingId: 'ffffffffffffffffffffffff',
				}),
			],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '404' });
		expect(result.error!.message).toMatch(/^Not found: Booking not found/);
		expect(result.error!.message).toMatch(/Check the ID, or look it up again \(Get Many\)\.$/);
	});

	it('a Base URL whose path before /v1 is wrong: says the Base URL is wrong', async () => {
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials: credentialsFor(sim, 'readWrite', sim.baseUrl.replace(/\/v1$/, '/api/v1')),
		});

		expect(result.error).toMatchObject({ httpCode: '404' });
		expect(result.error!.message).toMatch(/^Nothing was found at http:\/\/127\.0\.0\.1:\d+\/api\/v1\/me \(HTTP 404\)\. The Base URL in the Booking Service API credential must be the service's base URL including the version prefix \/v1/);
	});
});

describe('validation_failed from the service', () => {
	it('lists each field from details', async () => {
		// Only the service knows which webhook targets it accepts: http is refused here.
		const result = await runWorkflow({
			nodes: [
				bookingServiceNode('Subscribe', {
					resource: 'webhookSubscription',
					operation: 'create',
					url: 'http://hooks.example.com/booking-events',
					events: ['booking.created'],
				}),
			],
			credentials: credentialsFor(sim),
		});

		expect(result.error).toMatchObject({ name: 'NodeApiError', httpCode: '400' });
		expect(result.error!.message).toMatch(/^The service refused these values: url: /);
		expect(requestsTo(sim, '/webhooks')).toHaveLength(1);
	});
});

describe('the trailing slash of the Base URL', () => {
	it('is tolerated', async () => {
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials: credentialsFor(sim, 'readWrite', `${sim.baseUrl}/`),
		});

		expect(result.error).toBeUndefined();
		expect(requestsTo(sim).map((request) => request.path)).toEqual(['/v1/me']);
	});
});

describe('failures without an answer', () => {
	it('neither a timeout nor an unreachable service puts the key (or the request holding it) in the error', async () => {
		sim.control.addFault({
			method: 'GET',
			path: '/me',
			kind: 'latency',
			latencyMs: 1000,
			count: 1,
		});
		const timedOut = await runWorkflow({
			nodes: [
				bookingServiceNode('Me', {
					resource: 'account',
					operation: 'get',
					options: { timeout: 100 },
				}),
			],
			credentials: credentialsFor(sim),
		});
		const closed = await startTestSimulator();
		await closed.close();
		const unreachable = await runWorkflow({
			nodes: [getAccount],
			credentials: credentialsFor(sim, 'readWrite', closed.baseUrl),
		});

		expect(timedOut.error!.message).toMatch(
			/^The Booking Service at .* did not answer GET \/me within 0.1 s; try again later, or raise the Timeout option$/,
		);
		expect(unreachable.error!.message).toMatch(/^Nothing accepts connections at 127\.0\.0\.1:\d+ \(connection refused\)/);
		expectNoSecret(timedOut, sim.apiKeys.readWrite);
		expectNoSecret(unreachable, sim.apiKeys.readWrite);
	});
});

describe("n8n's own logging of a failed node", () => {
	it('is kept in memory rather than printed, and holds the error without the key', async () => {
		const wrongKey = `bsk_${'1'.repeat(40)}`;
		n8nLog.clear();
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials: credentialsFor(sim, wrongKey),
		});

		expect(result.error).toMatchObject({ httpCode: '401' });
		const errors = n8nLog.entries.filter((entry) => entry.level === 'error');
		expect(errors.map((entry) => entry.message)).toContain(
			'The Booking Service rejected the API key: it is wrong, revoked or incomplete. Create a new key in the app (Settings → API keys and webhooks) and paste it into the API Key of the Booking Service API credential.',
		);
		expect(pathsHolding(n8nLog.entries, wrongKey)).toEqual([]);
	});
});
