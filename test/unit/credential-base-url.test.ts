/**
 * The credential test accepts exactly the Base URLs the nodes accept. The credential's test request computes its base
 * URL with an n8n expression (a declarative test cannot call our code); here it is evaluated by n8n's own expression
 * engine for a table of what users paste, side by side with the nodes' normaliseBaseUrl: both accept the same
 * address, or both refuse. The expression refuses by throwing the nodes' sentence: n8n's default `vm` expression
 * engine passes it to the credential test's message (the e2e suite shows it in real n8n); the `legacy` engine this
 * harness runs swallows it and yields no base URL, so the test cannot pass there either.
 */
import { describe, expect, it } from 'vitest';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials.ts';
import { normaliseBaseUrl } from '../../nodes/shared/baseUrl.ts';
import { resolveCredentialExpression } from '../harness/engine.ts';

const testBaseUrl = new BookingServiceApi().test.request.baseURL;

function credentialTestSays(baseUrl: string): { baseUrl: string } | { refused: unknown } {
	try {
		const resolved = resolveCredentialExpression(testBaseUrl, { apiKey: 'k', baseUrl });
		return typeof resolved === 'string' && resolved !== '' ? { baseUrl: resolved } : { refused: resolved };
	} catch (error) {
		return { refused: String((error as Error).message) };
	}
}

const ACCEPTED = [
	'https://api.example.com/v1',
	'https://api.example.com/v1/',
	'  https://api.example.com/v1  ',
	'https://API.example.com:8443/v1',
	'http://127.0.0.1:8080/v1',
	'http://localhost:5680/v1/',
	'http://[::1]:8080/v1',
	'HTTPS://api.example.com/v1',
];

const REFUSED: Array<[string, RegExp]> = [
	['', /is empty/],
	['   ', /is empty/],
	['api.example.com/v1', /not a valid URL/],
	['https://', /not a valid URL/],
	['ftp://api.example.com/v1', /must start with https:\/\//],
	['http://api.example.com/v1', /http:\/\/ is only for a local simulator/],
	['http://10.0.0.5/v1', /http:\/\/ is only for a local simulator/],
	['http://localhost.example.com/v1', /http:\/\/ is only for a local simulator/],
	['http://127.0.0.1.nip.io/v1', /http:\/\/ is only for a local simulator/],
	['https://user:pass@api.example.com/v1', /must not contain a user name or password/],
	['https://key@api.example.com/v1', /must not contain a user name or password/],
	['https://api.example.com/v1?key=1', /must not contain a query/],
	['https://api.example.com/v1#x', /must not contain a query/],
];

describe('Base URL: credential test and nodes agree', () => {
	it.each(ACCEPTED)('%j is accepted by both, as the same address', (raw) => {
		const nodes = normaliseBaseUrl(raw);
		const credentialTest = credentialTestSays(raw);
		expect(nodes).toHaveProperty('baseUrl');
		expect(credentialTest).toHaveProperty('baseUrl');
		const same = (text: string) => new URL(text).href.replace(/\/+$/, '');
		expect(same((credentialTest as { baseUrl: string }).baseUrl)).toBe(
			same((nodes as { baseUrl: string }).baseUrl),
		);
	});

	it.each(REFUSED)('%j is refused by both: %s', (raw, problem) => {
		expect(normaliseBaseUrl(raw)).toEqual({ problem: expect.stringMatching(problem) });
		expect(credentialTestSays(raw)).toHaveProperty('refused');
	});
});
