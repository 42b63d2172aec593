// The credential's Test button, run by the nodes (`testedBy`) so every failure reads as a sentence saying what to
// change. n8n shows a declarative test's network failures as bare codes (ERR_INVALID_URL, ECONNREFUSED), and n8n 1.x
// and 2.16 replace its own 401/404 texts with generic ones; a test method's message is shown as is on every version.
// It asks with Node's fetch: a test method gets only n8n's deprecated `request` helper, which the strict community lint
// refuses. So the Test button, unlike the nodes, does not go through an HTTP proxy n8n is configured with.
import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { normaliseBaseUrl } from './baseUrl';
import { connectionFailureMessage, noAnswerMessage, nothingAtMessage, WRONG_KEY_MESSAGE } from './setupTexts';

/** The method name the nodes' `credentials: [{ testedBy }]` entries point at. */
export const CREDENTIAL_TEST_METHOD = 'bookingServiceApiTest';

/**
 * fetch gives up on a connection not made within 10 s (undici's connect timeout); the whole test has the same limit, so
 * one number holds whichever step the service does not answer.
 */
const TEST_TIMEOUT_MS = 10_000;

const KEY_HELP = 'Create a new key in the app (Settings → API keys and webhooks) and paste it into API Key.';
const BASE_URL_EXAMPLE = 'e.g. https://api.example.com/v1';

interface TestResponse {
	status: number;
	location: string | null;
	body: unknown;
}

function failure(message: string): INodeCredentialTestResult {
	return { status: 'Error', message };
}

/** `GET {Base URL}/me` answers for any valid key whatever its scopes: it tests the key and the address, nothing else. */
export async function testBookingServiceCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const parsed = normaliseBaseUrl(data.baseUrl);
	if ('problem' in parsed) return failure(parsed.problem);
	const { baseUrl } = parsed;
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	if (apiKey === '') return failure(`The API Key is empty. ${KEY_HELP}`);

	let response: TestResponse;
	try {
		const answer = await fetch(`${baseUrl}/me`, {
			headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
			// A redirect is not followed: it could carry the key to another host.
			redirect: 'manual',
			signal: AbortSignal.timeout(TEST_TIMEOUT_MS),
		});
		const text = await answer.text();
		response = { status: answer.status, location: answer.headers.get('location'), body: parseJson(text) };
	} catch (error) {
		return failure(unreachable(baseUrl, error));
	}
	return verdict(baseUrl, response);
}

function verdict(baseUrl: string, response: TestResponse): INodeCredentialTestResult {
	const { status } = response;
	if (status >= 200 && status < 300) {
		if (isAccount(response.body)) return { status: 'OK', message: 'Connection tested successfully' };
		return failure(
			`Something answered at ${baseUrl}, but not the Booking Service: GET /me did not return an account. Check the Base URL: it must be the service's base URL including /v1, ${BASE_URL_EXAMPLE}.`,
		);
	}
	if (status === 401) return failure(WRONG_KEY_MESSAGE);
	if (status === 403) return failure(`The service refused the API key for this account. ${KEY_HELP}`);
	if (status === 404) return failure(nothingAtMessage(baseUrl, '/me'));
	if (status === 429) {
		return failure('The service is rate limiting this API key right now (HTTP 429). Wait a minute, then test again.');
	}
	if (status >= 300 && status < 400) {
		const location = response.location ? ` to ${response.location}` : '';
		return failure(
			`${baseUrl}/me redirects${location} (HTTP ${status}); the key is not sent on to another address. Put the service's own base URL, including /v1, in Base URL.`,
		);
	}
	if (status >= 500) {
		return failure(`The service failed to answer (HTTP ${status}). The credential may be fine: test again later.`);
	}
	return failure(
		`The service answered HTTP ${status} to GET /me. Check that the Base URL is the service's base URL including /v1, ${BASE_URL_EXAMPLE}.`,
	);
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

function isAccount(body: unknown): boolean {
	const account = body as { id?: unknown; scopes?: unknown } | null;
	return typeof account?.id === 'string' && Array.isArray(account.scopes);
}

/** The network error's code (fetch puts it on the error's cause), or the cause's own words when it has none. */
function errorCode(error: unknown): string {
	const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
	const code = cause?.code ?? (error as { code?: unknown } | null)?.code;
	if (typeof code === 'string' && code !== '') return code;
	return typeof cause?.message === 'string' ? cause.message : '';
}

/** The nodes' sentence for the same failure (setupTexts.ts); only the timeout is the Test button's own. */
function unreachable(baseUrl: string, error: unknown): string {
	const code = errorCode(error);
	const name = String((error as { name?: unknown })?.name ?? '');
	if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
		return `${noAnswerMessage(baseUrl, 'GET /me', TEST_TIMEOUT_MS)}. Check the Base URL of the Booking Service API credential, and that this n8n can reach the service (firewall, proxy).`;
	}
	return connectionFailureMessage(baseUrl, code);
}
