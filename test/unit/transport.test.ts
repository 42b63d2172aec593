import { describe, expect, it } from 'vitest';

import { normaliseBaseUrl } from '../../nodes/shared/baseUrl.ts';
import { MAX_RATE_LIMIT_ATTEMPTS, parseRetryAfterSeconds } from '../../nodes/shared/rateLimit.ts';
import { isAlreadyGone, serviceErrorDetailsOf } from '../../nodes/shared/serviceErrors.ts';
import { bookingServiceApiRequest, DEFAULT_TIMEOUT_MS } from '../../nodes/shared/transport.ts';
import { pathsHolding } from '../harness/fixtures.ts';
import { fakeContext, TEST_API_KEY } from './fake-context.ts';

const envelope = (code: string, message: string, details?: unknown) => ({
	error: details === undefined ? { code, message } : { code, message, details },
});

async function failureOf(
	answer: Parameters<typeof fakeContext>[0],
	request = { method: 'GET' as const, path: '/me' },
) {
	const { context } = fakeContext(answer);
	try {
		await bookingServiceApiRequest.call(context, request, 3);
	} catch (error) {
		return error as Error & {
			httpCode: string | null;
			description: string;
			context: Record<string, unknown>;
		};
	}
	throw new Error('expected the request to fail');
}

describe('normaliseBaseUrl', () => {
	it.each([
		['https://api.example.com/v1', 'https://api.example.com/v1'],
		['https://api.example.com/v1/', 'https://api.example.com/v1'],
		['  https://api.example.com/v1//  ', 'https://api.example.com/v1'],
		['http://127.0.0.1:8080/v1', 'http://127.0.0.1:8080/v1'],
	])('%s → %s', (raw, baseUrl) => {
		expect(normaliseBaseUrl(raw)).toEqual({ baseUrl });
	});

	it.each([
		['', /is empty/],
		['api.example.com/v1', /must start with https:\/\//],
		['ftp://api.example.com/v1', /must start with https:\/\//],
		['https://user:pass@api.example.com/v1', /must not contain a user name or password/],
		['https://api.example.com/v1?key=1', /must not contain a query/],
	])('%j is refused: %s', (raw, problem) => {
		expect(normaliseBaseUrl(raw)).toEqual({ problem: expect.stringMatching(problem) });
	});
});

describe('the request', () => {
	it('is JSON with the base URL joined, a timeout, no redirects, and full responses read by the transport', async () => {
		const { context, requests } = fakeContext(() => ({ statusCode: 201, body: { id: 'x' } }));
		const body = await bookingServiceApiRequest.call(context, {
			method: 'POST',
			path: '/bookings',
			body: { a: 1 },
			headers: { 'Idempotency-Key': 'k' },
		});

		expect(body).toEqual({ id: 'x' });
		expect(requests[0]).toMatchObject({
			method: 'POST',
			url: 'https://api.example.com/v1/bookings',
			body: { a: 1 },
			json: true,
			timeout: DEFAULT_TIMEOUT_MS,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			headers: {
				Accept: 'application/json',
				'Content-Type': 'application/json',
				'Idempotency-Key': 'k',
			},
		});
	});

	it('sends no Content-Type without a body, and an empty 204 answer is undefined', async () => {
		const { context, requests } = fakeContext(() => ({ statusCode: 204, body: '' }));

		expect(
			await bookingServiceApiRequest.call(context, { method: 'DELETE', path: '/webhooks/x' }),
		).toBeUndefined();
		expect(requests[0].headers).toEqual({ Accept: 'application/json' });
	});
});

describe('error envelopes become NodeApiErrors that say what to do', () => {
	it('401: key rejected, create a new one; httpCode and service code kept', async () => {
		const error = await failureOf(() => ({
			statusCode: 401,
			body: envelope('unauthorized', 'Bad key.'),
		}));

		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: '401' });
		expect(error.message).toMatch(/rejected the API key/);
		expect(error.message).toMatch(/Create a new key/);
		expect(error.context).toMatchObject({ serviceErrorCode: 'unauthorized', itemIndex: 3 });
	});

	it('403: names the scope from the message, or the one the operation declared', async () => {
		const named = await failureOf(() => ({
			statusCode: 403,
			body: envelope('insufficient_scope', 'Missing webhooks:manage.'),
		}));
		const declared = await failureOf(
			() => ({ statusCode: 403, body: envelope('insufficient_scope', 'Forbidden.') }),
			{
				method: 'POST',
				path: '/bookings',
				scope: 'bookings:write',
			} as never,
		);

		expect(named.message).toBe(
			'The API key lacks the "webhooks:manage" permission this operation needs: use a key with "Read and write"',
		);
		expect(declared.message).toBe(
			'The API key lacks the "bookings:write" permission this operation needs: use a key with "Read and write"',
		);
		expect(declared.description).toMatch(/"Read and write"/);
	});

	it.each([
		[
			[
				{ field: 'booker.email', message: 'must be an email' },
				{ field: 'start', message: 'must end in Z' },
			],
			'booker.email: must be an email; start: must end in Z',
		],
		[['url is not https'], 'url is not https'],
		[[{ path: ['booker', 'name'], reason: 'too long' }], 'booker.name: too long'],
		[undefined, 'Invalid request.'],
	])('validation_failed lists each field from details %j', async (details, listed) => {
		const error = await failureOf(() => ({
			statusCode: 400,
			body: envelope('validation_failed', 'Invalid request.', details),
		}));

		expect(error.message).toBe(
			`The service refused these values: ${listed.replace(/\.?$/, '.')} Nothing was changed; correct the values it names.`,
		);
		expect(error.httpCode).toBe('400');
	});

	it('validation_failed details are also on the error, one { field?, message } per entry', async () => {
		const error = await failureOf(() => ({
			statusCode: 400,
			body: envelope('validation_failed', 'Invalid request.', [
				{ field: 'booker.email', message: 'must be an email' },
				'url is not https',
				{ path: ['booker', 'name'], reason: 'too long' },
				{ field: 'start' },
				{ code: 7 },
			]),
		}));

		expect(error.context.serviceErrorDetails).toEqual([
			{ field: 'booker.email', message: 'must be an email' },
			{ message: 'url is not https' },
			{ field: 'booker.name', message: 'too long' },
			{ field: 'start', message: '' },
			{ message: '{"code":7}' },
		]);
		expect(error.message).toBe(
			'The service refused these values: booker.email: must be an email; url is not https; booker.name: too long; start; {"code":7}. Nothing was changed; correct the values it names.',
		);
		expect(serviceErrorDetailsOf(error)).toEqual(error.context.serviceErrorDetails);
	});

	it('an envelope without details leaves serviceErrorDetails out', async () => {
		const error = await failureOf(() => ({
			statusCode: 400,
			body: envelope('validation_failed', 'Invalid request.'),
		}));

		expect(error.context).not.toHaveProperty('serviceErrorDetails');
		expect(serviceErrorDetailsOf(error)).toEqual([]);
	});

	it.each([
		['slot_unavailable', 409, /^The requested start time is not free; no booking was made\. Choose another start from the free ones \(Event Type → Get Available Slots\)\.$/],
		['event_type_inactive', 409, /event type is inactive/],
		['idempotency_conflict', 409, /Idempotency Key was already used/],
		['booking_state_changed', 409, /booking changed while this request ran/],
		['duplicate_booking', 409, /refused a duplicate booking/],
		['bad_request', 400, /refused the request: Nope/],
		['internal_error', 500, /failed to handle the request \(HTTP 500, internal_error\)/],
		['something_new', 502, /failed to handle the request \(HTTP 502, something_new\)/],
	])('%s (%s)', async (code, status, message) => {
		const error = await failureOf(() => ({ statusCode: status, body: envelope(code, 'Nope') }));

		expect(error.message).toMatch(message);
		expect(error.httpCode).toBe(String(status));
	});

	it.each([
		['unauthorized', 401],
		['insufficient_scope', 403],
		['not_found', 404],
		['slot_unavailable', 409],
		['validation_failed', 400],
		['event_type_inactive', 409],
		['idempotency_conflict', 409],
		['booking_state_changed', 409],
		['duplicate_booking', 409],
		['internal_error', 500],
	])('%s: the message is for whoever reads the workflow; the next step for a chatbot travels beside it', async (code, status) => {
		const error = await failureOf(() => ({ statusCode: status, body: envelope(code, 'Nope') }), {
			method: 'POST',
			path: '/bookings/0123456789abcdef01234567/cancel',
		} as never);

		expect(error.message).not.toMatch(/customer|offer|tell |apologi/i);
		expect(error.context.agentAdvice).toEqual(expect.stringMatching(/\.$/));
	});

	it('404 on a path without an ID means the Base URL is wrong; with an ID, the thing is missing', async () => {
		const wrongBase = await failureOf(() => ({
			statusCode: 404,
			body: envelope('not_found', 'No such route'),
		}));
		const missing = await failureOf(
			() => ({ statusCode: 404, body: envelope('not_found', 'Booking not found.') }),
			{
				method: 'GET',
				path: '/bookings/0123456789abcdef01234567',
			} as never,
		);
		const html = await failureOf(() => ({ statusCode: 404, body: '<html>Not Found</html>' }));

		expect(wrongBase.message).toBe(
			"Nothing was found at https://api.example.com/v1/me (HTTP 404). The Base URL in the Booking Service API credential must be the service's base URL including the version prefix /v1, e.g. https://api.example.com/v1.",
		);
		expect(missing.message).toBe('Not found: Booking not found. Check the ID, or look it up again (Get Many).');
		expect(html.description).toMatch(/Base URL is probably wrong/);
	});

	it('never repeats the API key, even when the service echoes it', async () => {
		const error = await failureOf(() => ({
			statusCode: 400,
			body: envelope('bad_request', `Key ${TEST_API_KEY} is odd`, [`header ${TEST_API_KEY}`]),
		}));

		expect(error.message).toContain('[redacted]');
		expect(pathsHolding(error, TEST_API_KEY)).toEqual([]);
	});

	it('never repeats the API key in the details either', async () => {
		const error = await failureOf(() => ({
			statusCode: 400,
			body: envelope('validation_failed', 'Invalid request.', [
				{ field: `header.${TEST_API_KEY}`, message: `Key ${TEST_API_KEY} is odd` },
			]),
		}));

		expect(error.context.serviceErrorDetails).toEqual([
			{ field: 'header.[redacted]', message: 'Key [redacted] is odd' },
		]);
		expect(pathsHolding(error, TEST_API_KEY)).toEqual([]);
	});
});

describe('serviceErrorDetailsOf', () => {
	it('is [] for errors that carry no details, and keeps only well-formed entries', () => {
		expect(serviceErrorDetailsOf(new Error('x'))).toEqual([]);
		expect(serviceErrorDetailsOf(undefined)).toEqual([]);
		expect(serviceErrorDetailsOf({ context: { serviceErrorDetails: 'url' } })).toEqual([]);
		expect(
			serviceErrorDetailsOf({
				context: {
					serviceErrorDetails: [
						{ field: 'url', message: 'must be https' },
						{ message: 'no field' },
						{ field: 7, message: 'bad field' },
						{ field: 'events' },
						null,
					],
				},
			}),
		).toEqual([{ field: 'url', message: 'must be https' }, { message: 'no field' }]);
	});
});

describe('no answer at all', () => {
	/** What n8n throws when the HTTP client fails: a wrapper whose cause holds the request, Authorization included. */
	const clientFailure = (code: string, message: string) =>
		Object.assign(new Error(message), {
			cause: Object.assign(new Error(message), {
				code,
				config: { headers: { Authorization: `Bearer ${TEST_API_KEY}` } },
			}),
		});

	it("a refused connection: the credential test's sentence, no trace of the request", async () => {
		const error = await failureOf(() =>
			clientFailure('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1'),
		);

		expect(error).toMatchObject({ name: 'NodeApiError', httpCode: null });
		expect(error.message).toBe(
			'Nothing accepts connections at api.example.com (connection refused). Check the host and port in the Base URL of the Booking Service API credential, and that the service is running.',
		);
		expect(error.cause).toBeUndefined();
		expect(pathsHolding(error, TEST_API_KEY)).toEqual([]);
	});

	it('a timeout of a keyed write: may have been processed, a retry is safe', async () => {
		const error = await failureOf(
			() => clientFailure('ECONNABORTED', 'timeout of 1500ms exceeded'),
			{
				method: 'POST',
				path: '/bookings',
				headers: { 'Idempotency-Key': 'k' },
				timeoutMs: 1500,
			} as never,
		);

		expect(error.message).toBe(
			'The Booking Service at https://api.example.com/v1 did not answer POST /bookings within 1.5 s; it may still have acted: run it again to be sure (it never books twice)',
		);
		expect(error.description).toMatch(/Retrying is safe.*Idempotency-Key/);
	});

	it('a timeout of a write without a key: may have been processed, check first', async () => {
		const error = await failureOf(() => clientFailure('ETIMEDOUT', 'connect ETIMEDOUT'), {
			method: 'POST',
			path: '/webhooks',
		} as never);

		expect(error.message).toMatch(/within 60 s; it may still have acted: check before running it again$/);
		expect(error.description).toBe('The service may have processed the request without its answer arriving.');
	});

	it('a timeout of a read: try again', async () => {
		const error = await failureOf(() =>
			clientFailure('ECONNABORTED', 'timeout of 60000ms exceeded'),
		);

		expect(error.message).toMatch(/did not answer GET \/me within 60 s/);
		expect(error.description).toMatch(/Retry On Fail/);
	});
});

describe('429', () => {
	it('is retried after Retry-After, then succeeds', async () => {
		const { context, requests } = fakeContext((_, index) =>
			index < 2
				? {
						statusCode: 429,
						headers: { 'retry-after': '0' },
						body: envelope('rate_limited', 'Slow down'),
					}
				: { body: { ok: true } },
		);

		expect(await bookingServiceApiRequest.call(context, { method: 'GET', path: '/me' })).toEqual({
			ok: true,
		});
		expect(requests).toHaveLength(3);
	});

	it('without Retry-After, backs off and retries', async () => {
		const { context, requests } = fakeContext((_, index) =>
			index === 0 ? { statusCode: 429 } : { body: { ok: true } },
		);

		expect(await bookingServiceApiRequest.call(context, { method: 'GET', path: '/me' })).toEqual({
			ok: true,
		});
		expect(requests).toHaveLength(2);
	});

	it(`gives up after ${MAX_RATE_LIMIT_ATTEMPTS} attempts`, async () => {
		const { context, requests } = fakeContext(() => ({
			statusCode: 429,
			headers: { 'retry-after': '0' },
		}));

		await expect(
			bookingServiceApiRequest.call(context, { method: 'GET', path: '/me' }),
		).rejects.toMatchObject({
			httpCode: '429',
			message: expect.stringMatching(/kept rate limiting/),
		});
		expect(requests).toHaveLength(MAX_RATE_LIMIT_ATTEMPTS);
	});
});

describe('parseRetryAfterSeconds', () => {
	it.each([
		['0', 0],
		['12', 12],
		[' 7 ', 7],
		[30, 30],
		['soon', undefined],
		[undefined, undefined],
		['-1', undefined],
	])('%j → %j', (value, seconds) => {
		expect(parseRetryAfterSeconds(value)).toBe(seconds);
	});

	it('reads an HTTP date, never negative', () => {
		expect(
			parseRetryAfterSeconds(new Date(Date.now() + 5_000).toUTCString()),
		).toBeGreaterThanOrEqual(4);
		expect(parseRetryAfterSeconds('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0);
	});
});

describe('isAlreadyGone', () => {
	it('is true for 404 and 410 only', () => {
		expect(isAlreadyGone({ httpCode: '404' })).toBe(true);
		expect(isAlreadyGone({ httpCode: '410' })).toBe(true);
		expect(isAlreadyGone({ httpCode: '500' })).toBe(false);
		expect(isAlreadyGone(new Error('x'))).toBe(false);
		expect(isAlreadyGone(undefined)).toBe(false);
	});
});
