/**
 * One source for the messages about the set-up: for the same wrong key, missing /v1, closed port, unknown host or
 * https spoken to a plain-http port, the credential's Test button and a node (Create, Account → Get) give the same
 * sentence — under every On Error setting — and none shows a bare network code.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ICredentialTestFunctions, INode } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { START_NODE_TYPE, bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { createBookingParameters, credentialsFor, eventTypeId, freeSlots, requestsTo, useTestSimulator } from '../harness/fixtures.ts';

const sim = useTestSimulator({}, { beforeEachTest: 'clearRequests' });

async function unusedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

async function credentialTest(data: { apiKey: string; baseUrl: string }) {
	const node = new BookingService();
	return await node.methods.credentialTest.bookingServiceApiTest.call({} as ICredentialTestFunctions, {
		id: 'c',
		name: 'Booking Service',
		type: 'bookingServiceApi',
		data,
	});
}

type Setup = { apiKey: string; baseUrl: string };

const CASES: Array<[string, () => Promise<Setup>, RegExp]> = [
	[
		'a wrong key',
		async () => ({ apiKey: `bsk_${'0'.repeat(40)}`, baseUrl: sim.baseUrl }),
		/^The Booking Service rejected the API key: it is wrong, revoked or incomplete\. Create a new key in the app .*Booking Service API credential\.$/,
	],
	[
		'a Base URL without /v1',
		async () => ({ apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl.replace(/\/v1$/, '') }),
		/^The Base URL "http:\/\/127\.0\.0\.1:\d+" in the Booking Service API credential must end with the version prefix \/v1, e\.g\. https:\/\/api\.example\.com\/v1\.$/,
	],
	[
		'a port nothing listens on',
		async () => ({ apiKey: sim.apiKeys.readWrite, baseUrl: `http://127.0.0.1:${await unusedPort()}/v1` }),
		/^Nothing accepts connections at 127\.0\.0\.1:\d+ \(connection refused\)\. Check the host and port in the Base URL of the Booking Service API credential, and that the service is running\.$/,
	],
	[
		'an unknown host',
		async () => ({ apiKey: sim.apiKeys.readWrite, baseUrl: 'https://bookings.invalid/v1' }),
		/^The host name "bookings\.invalid" in the Base URL of the Booking Service API credential was not found\. Check its spelling/,
	],
	[
		'https to a plain-http port',
		async () => ({ apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl.replace('http://', 'https://') }),
		/^127\.0\.0\.1:\d+ does not speak https\. Check the Base URL of the Booking Service API credential/,
	],
];

function wired(action: INode) {
	const receiver = (name: string): INode => ({ id: name, name, type: START_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: {} });
	return {
		nodes: [action, receiver('Succeeded'), receiver('Failed')],
		connections: {
			Start: { main: [[{ node: action.name, type: 'main' as const, index: 0 }]] },
			[action.name]: {
				main: [
					[{ node: 'Succeeded', type: 'main' as const, index: 0 }],
					[{ node: 'Failed', type: 'main' as const, index: 0 }],
				],
			},
		},
	};
}

describe.each(CASES)('%s', (_name, setupOf, sentence) => {
	it('the credential test and Account → Get say the same sentence, naming no code', async () => {
		const setup = await setupOf();
		const tested = await credentialTest(setup);
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim, setup.apiKey, setup.baseUrl),
		});

		expect(tested).toEqual({ status: 'Error', message: expect.stringMatching(sentence) });
		expect(result.error?.message).toBe(tested.message);
		expect(`${result.error?.message} ${result.error?.description}`).not.toMatch(/\b(e[a-z]+|ERR_[A-Z_]+)\)/);
	});

	it.each<[string, INode['onError'] | undefined]>([
		['Stop Workflow', undefined],
		['Continue (using regular output)', 'continueRegularOutput'],
		['Continue (using error output)', 'continueErrorOutput'],
	])('Create under %s: the same sentence, and nothing booked', async (_setting, onError) => {
		const setup = await setupOf();
		const tested = await credentialTest(setup);
		const [start] = await freeSlots(sim, 'intro-call');
		sim.control.clearRequests();
		const create = bookingServiceNode(
			'Create',
			createBookingParameters(eventTypeId(sim, 'intro-call'), start),
			onError ? { onError } : {},
		);
		const result = await runWorkflow({ ...wired(create), credentials: credentialsFor(sim, setup.apiKey, setup.baseUrl) });

		const failedItem =
			onError === 'continueErrorOutput' ? result.items.Failed?.[0] : result.items.Succeeded?.[0];
		const shown = onError === undefined ? result.error?.message : (failedItem?.json.error as { message?: string })?.message;
		expect(shown).toBe(tested.message);
		expect(requestsTo(sim, '/bookings').filter((request) => request.method === 'POST' && request.status === 201)).toEqual([]);
	});
});

describe('a wrong path before /v1 (the service is not at this address)', () => {
	it('the credential test and Account → Get say the same sentence', async () => {
		const setup = { apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl.replace(/\/v1$/, '/api/v1') };
		const tested = await credentialTest(setup);
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim, setup.apiKey, setup.baseUrl),
		});

		expect(tested.message).toBe(
			`Nothing was found at ${setup.baseUrl}/me (HTTP 404). The Base URL in the Booking Service API credential must be the service's base URL including the version prefix /v1, e.g. https://api.example.com/v1.`,
		);
		expect(result.error?.message).toBe(tested.message);
	});
});

describe('a connection closed before the answer (not a set-up problem n8n has its own text for)', () => {
	it("keeps the package's sentence: n8n's generic text for the network code does not replace it", async () => {
		sim.control.addFault({ method: 'GET', path: '/me', kind: 'drop', count: 1 });
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get' })],
			credentials: credentialsFor(sim),
		});

		expect(result.error?.message).toBe(
			`Could not reach the Booking Service at ${new URL(sim.baseUrl).host}. Check the Base URL of the Booking Service API credential, and that this n8n can reach the service.`,
		);
	});
});
