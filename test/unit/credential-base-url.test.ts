/**
 * The Base URL rules every node and the credential's Test button apply (nodes/shared/baseUrl.ts), for a table of what
 * users paste: what is accepted and as which address, and the sentence that says what to change for the rest.
 */
import { describe, expect, it } from 'vitest';

import { normaliseBaseUrl } from '../../nodes/shared/baseUrl.ts';

const ACCEPTED: Array<[string, string]> = [
	['https://api.example.com/v1', 'https://api.example.com/v1'],
	['https://api.example.com/v1/', 'https://api.example.com/v1'],
	['  https://api.example.com/v1  ', 'https://api.example.com/v1'],
	['https://API.example.com:8443/v1', 'https://api.example.com:8443/v1'],
	['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1'],
	['http://localhost:5680/v1/', 'http://localhost:5680/v1'],
	['http://[::1]:8080/v1', 'http://[::1]:8080/v1'],
	['HTTPS://api.example.com/v1', 'https://api.example.com/v1'],
];

const REFUSED: Array<[string, RegExp]> = [
	['', /is empty/],
	['   ', /is empty/],
	['api.example.com/v1', /must start with https:\/\/ .*write the whole address, e\.g\. https:\/\/api\.example\.com\/v1/],
	['127.0.0.1:5680/v1', /"127\.0\.0\.1:5680\/v1" .* must start with https:\/\//],
	['localhost:5680/v1', /must start with https:\/\//],
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
	// The contract's base URL always ends in /v1: without it every request is refused, and a Create would read "not found".
	['https://api.example.com', /^The Base URL "https:\/\/api\.example\.com" in the Booking Service API credential must end with the version prefix \/v1, e\.g\. https:\/\/api\.example\.com\/v1\.$/],
	['http://127.0.0.1:5680/', /"http:\/\/127\.0\.0\.1:5680" .* must end with the version prefix \/v1/],
	['https://api.example.com/v1/bookings', /must end with the version prefix \/v1/],
	['https://api.example.com/V1', /must end with the version prefix \/v1/],
];

describe('Base URL rules of the nodes and the credential test', () => {
	it.each(ACCEPTED)('%j is accepted as %j', (raw, address) => {
		expect(normaliseBaseUrl(raw)).toEqual({ baseUrl: address });
	});

	it.each(REFUSED)('%j is refused: %s', (raw, problem) => {
		expect(normaliseBaseUrl(raw)).toEqual({ problem: expect.stringMatching(problem) });
	});
});
