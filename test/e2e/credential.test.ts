// The credential's Test button as n8n itself runs it (POST /rest/credentials/test): n8n finds the nodes' credential test
// method (`testedBy`) and shows its message as is. Every failure must read as the same sentence saying what to change on
// every tested n8n (2.41.1, 2.16.1, 1.123.81), where a declarative test showed bare codes (ERR_INVALID_URL,
// ECONNREFUSED) or, on 1.x and 2.16, n8n's generic texts. The nodes' own requests, and how n8n applies the credential's
// `authenticate` to them, are proven in actions.test.ts. No assertion here may print an API key.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE, n8n } from './n8n.ts';

const client = n8n();
let simulator: Simulator;
const credentialIds: string[] = [];

beforeAll(async () => {
	simulator = await startSimulator();
});

afterAll(async () => {
	for (const id of credentialIds) await client.api('DELETE', `/credentials/${id}`);
	await simulator?.close();
});

beforeEach(() => {
	simulator.control.clearRequests();
});

/** Saves a credential as a user would, then presses its "Test" button. */
async function saveAndTest(name: string, data: { apiKey: string; baseUrl: string }) {
	const credential = await client.createCredential({ name, type: CREDENTIAL_TYPE, data });
	credentialIds.push(credential.id);
	return await client.testCredential(credential.id);
}

/** The simulator's log of /v1 requests since the last clear: method, route and status only (it never holds a key). */
function requestLog() {
	return simulator.control.requests().map(({ method, path, status }) => ({ method, path, status }));
}

/** A loopback port with nothing listening: bound, then released. */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

describe('credential test in n8n', () => {
	it('passes with a good key: GET /v1/me was sent with the key, and the service answered 200', async () => {
		const result = await saveAndTest('Booking Service (good key)', {
			apiKey: simulator.apiKeys.readOnly,
			baseUrl: simulator.baseUrl,
		});

		expect(result).toEqual({ status: 'OK', message: 'Connection tested successfully' });
		// The service answers /me only to an authenticated request.
		expect(requestLog()).toEqual([{ method: 'GET', path: '/v1/me', status: 200 }]);
		const unauthenticated = await fetch(`${simulator.baseUrl}/me`);
		expect(unauthenticated.status).toBe(401);
	});

	it('tolerates what users paste: spaces around the key and a trailing slash on the base URL', async () => {
		const result = await saveAndTest('Booking Service (pasted)', {
			apiKey: ` ${simulator.apiKeys.readWrite}\n`,
			baseUrl: `${simulator.baseUrl}/`,
		});

		expect(result.status).toBe('OK');
		expect(requestLog()).toEqual([{ method: 'GET', path: '/v1/me', status: 200 }]);
	});

	it('a revoked key: says to create a new one and paste it', async () => {
		const { key } = simulator.control.createKey('readWrite');
		simulator.control.revokeKey(key);

		const result = await saveAndTest('Booking Service (revoked key)', { apiKey: key, baseUrl: simulator.baseUrl });

		expect(result).toEqual({
			status: 'Error',
			message:
				'The Booking Service rejected the API key: it is wrong, revoked or incomplete. Create a new key in the app (Settings → API keys and webhooks) and paste it into the API Key of the Booking Service API credential.',
		});
		expect(requestLog()).toEqual([{ method: 'GET', path: '/v1/me', status: 401 }]);
	});

	it('a Base URL without /v1: says it must end with /v1, and sends nothing', async () => {
		const withoutVersion = simulator.baseUrl.replace(/\/v1$/, '');
		expect(withoutVersion).not.toBe(simulator.baseUrl);

		const result = await saveAndTest('Booking Service (no /v1)', {
			apiKey: simulator.apiKeys.readWrite,
			baseUrl: withoutVersion,
		});

		expect(result).toEqual({
			status: 'Error',
			message: `The Base URL "${withoutVersion}" in the Booking Service API credential must end with the version prefix /v1, e.g. https://api.example.com/v1.`,
		});
		expect(requestLog()).toEqual([]);
	});

	// Refused by the same rules every node applies, before anything is sent.
	it.each([
		[
			'plain http to a host other than this machine',
			'http://bookings.example.com/v1',
			'The Base URL in the Booking Service API credential must start with https://; http:// is only for a local simulator on localhost, 127.0.0.1 or [::1], so the API key never travels unencrypted.',
		],
		[
			'an address without https://',
			'127.0.0.1:5680/v1',
			'The Base URL "127.0.0.1:5680/v1" in the Booking Service API credential must start with https:// (http:// only for a local simulator on this machine); write the whole address, e.g. https://api.example.com/v1.',
		],
		[
			'a user name and password in the URL',
			'http://user:secret@127.0.0.1:5680/v1',
			'The Base URL in the Booking Service API credential must not contain a user name or password; put the key in the API Key field.',
		],
	])('refuses %s with a sentence, and sends nothing', async (_case, baseUrl, message) => {
		const result = await saveAndTest(`Booking Service (${_case})`, { apiKey: simulator.apiKeys.readWrite, baseUrl });

		expect(result).toEqual({ status: 'Error', message });
		expect(requestLog()).toEqual([]);
	});

	it('a wrong port: says nothing accepts connections there', async () => {
		const port = await closedPort();
		const result = await saveAndTest('Booking Service (wrong port)', {
			apiKey: simulator.apiKeys.readWrite,
			baseUrl: `http://127.0.0.1:${port}/v1`,
		});

		expect(result).toEqual({
			status: 'Error',
			message: `Nothing accepts connections at 127.0.0.1:${port} (connection refused). Check the host and port in the Base URL of the Booking Service API credential, and that the service is running.`,
		});
	});

	it('an unknown host: says the host name was not found', async () => {
		const result = await saveAndTest('Booking Service (unknown host)', {
			apiKey: simulator.apiKeys.readWrite,
			baseUrl: 'https://bookings.invalid/v1',
		});

		expect(result).toEqual({
			status: 'Error',
			message:
				'The host name "bookings.invalid" in the Base URL of the Booking Service API credential was not found. Check its spelling, and that this n8n can look up public host names.',
		});
	});
});
