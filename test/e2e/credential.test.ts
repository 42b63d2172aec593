// The credential as n8n itself applies it: the editor's "Test" button (POST /rest/credentials/test) runs the
// credential's `test` request with the credential's own declarative `authenticate`. The engine tests apply
// `authenticate` in their own harness, so this file is the only proof that n8n does it as declared.
// No assertion here may print an API key: keys are only ever compared as booleans.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { normaliseBaseUrl } from '../../nodes/shared/baseUrl.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TEST_TEXT, CREDENTIAL_TYPE, n8n } from './n8n.ts';

const client = n8n();
let simulator: Simulator;
const credentialIds: string[] = [];

// What the user sees: the credential's own test-rule messages in n8n 2.x, n8n's generic ones in 1.x.
const REJECTED_KEY = CREDENTIAL_TEST_TEXT.rejectedKey;
const NOTHING_AT_BASE_URL = CREDENTIAL_TEST_TEXT.nothingAtBaseUrl;

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

describe('credential test in n8n', () => {
	it('passes with a good key: n8n sent GET /v1/me authenticated, and the service answered 200', async () => {
		const result = await saveAndTest('Booking Service (good key)', {
			apiKey: simulator.apiKeys.readOnly,
			baseUrl: simulator.baseUrl,
		});

		expect(result.status).toBe('OK');
		// The service answers /me only to an authenticated request; without `authenticate` it would have been a 401.
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

	it('fails with the clear message for a revoked key', async () => {
		const { key } = simulator.control.createKey('readWrite');
		simulator.control.revokeKey(key);

		const result = await saveAndTest('Booking Service (revoked key)', { apiKey: key, baseUrl: simulator.baseUrl });

		expect(result.status).toBe('Error');
		expect(result.message).toMatch(REJECTED_KEY);
		expect(result.message.includes(key)).toBe(false);
		// n8n (1.123 and 2.41) sends any request that got a 401 once more after its credential "pre-authentication"
		// step (n8n-core requestWithAuthentication), even for a credential with nothing to refresh: two requests, both 401.
		expect(requestLog()).toEqual([
			{ method: 'GET', path: '/v1/me', status: 401 },
			{ method: 'GET', path: '/v1/me', status: 401 },
		]);
	});

	it('fails with the clear message for a base URL without /v1', async () => {
		const withoutVersion = simulator.baseUrl.replace(/\/v1$/, '');
		expect(withoutVersion).not.toBe(simulator.baseUrl);

		const result = await saveAndTest('Booking Service (no /v1)', {
			apiKey: simulator.apiKeys.readWrite,
			baseUrl: withoutVersion,
		});

		expect(result.status).toBe('Error');
		expect(result.message).toMatch(NOTHING_AT_BASE_URL);
		expect(result.message.includes(simulator.apiKeys.readWrite)).toBe(false);
		// The request went to /me outside the API, which the simulator's /v1 log does not record.
		expect(requestLog()).toEqual([]);
	});

	it.each([
		['plain http to a host other than this machine', (base: string) => base.replace('127.0.0.1', 'localhost.example.com'), /must start with https:\/\/; http:\/\/ is only for a local simulator/],
		['a user name and password in the URL', (base: string) => base.replace('http://', 'http://user:secret@'), /must not contain a user name or password/],
	])('refuses %s, as every node would, and sends nothing', async (_case, edit, sentence) => {
		const baseUrl = edit(simulator.baseUrl);
		const result = await saveAndTest(`Booking Service (${_case})`, {
			apiKey: simulator.apiKeys.readWrite,
			baseUrl,
		});

		// n8n's credential test shows only the HTTP client's word for a base URL it could not use; the README says
		// what it means. The nodes say it in a sentence (test/unit/credential-base-url.test.ts).
		expect(result).toEqual({ status: 'Error', message: CREDENTIAL_TEST_TEXT.unusableBaseUrl });
		expect(normaliseBaseUrl(baseUrl)).toEqual({ problem: expect.stringMatching(sentence) });
		expect(requestLog()).toEqual([]);
	});
});
