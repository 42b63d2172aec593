// The one way both nodes talk to the service (the trigger codes against it: keep it stable). Failures are thrown as
// NodeApiError (httpCode null when unreachable) with the envelope's code and details in error.context; messages never
// carry the API key, and no raw HTTP client error (which holds the Authorization header) is attached.
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { adviseAgent } from './agentAdvice';
import { normaliseBaseUrl } from './baseUrl';
import { MAX_RATE_LIMIT_ATTEMPTS, parseRetryAfterSeconds, rateLimitWaitMs } from './rateLimit';
import { SETUP_PROBLEM_ADVICE } from './serviceErrorTexts';
import { rateLimitError, redactorFor, serviceError, unreachableError } from './serviceErrors';

export const BOOKING_SERVICE_CREDENTIAL_TYPE = 'bookingServiceApi';

export type BookingServiceContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| IWebhookFunctions;

/** The scopes a key can hold (contract: Authentication). */
export type BookingServiceScope = 'event_types:read' | 'bookings:read' | 'bookings:write' | 'webhooks:manage';

export interface BookingServiceRequest {
	method: IHttpRequestMethods;
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
	timeoutMs?: number;
	/** The scope the operation needs, named in the 403 message if the service's own message does not. */
	scope?: BookingServiceScope;
	/** Attempts while the service answers 429; the trigger's hooks use 1 (n8n waits for them). */
	maxAttempts?: number;
	/**
	 * When the answer must be in (epoch ms): the timeout is cut to it and a 429 is waited out only if the wait ends
	 * before it. A poll's budget: n8n's durable scheduler abandons a poll that runs past its timeout.
	 */
	deadline?: number;
}

interface BookingServiceCredential {
	apiKey: string;
	baseUrl: string;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

export async function bookingServiceApiRequest<T = IDataObject>(
	this: BookingServiceContext,
	request: BookingServiceRequest,
	itemIndex?: number,
): Promise<T> {
	const credential = await this.getCredentials<BookingServiceCredential>(BOOKING_SERVICE_CREDENTIAL_TYPE, itemIndex);
	const parsedBaseUrl = normaliseBaseUrl(credential.baseUrl);
	if ('problem' in parsedBaseUrl) {
		throw adviseAgent(new NodeOperationError(this.getNode(), parsedBaseUrl.problem, { itemIndex }), SETUP_PROBLEM_ADVICE);
	}
	const { baseUrl } = parsedBaseUrl;
	const redact = redactorFor(credential.apiKey);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: jsonBody(request.body),
		headers: { Accept: 'application/json', ...request.headers },
		json: true,
		timeout: timeoutFor(request),
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// The service never redirects; following one could carry the key to another host.
		disableFollowRedirect: true,
	};
	if (request.body !== undefined) {
		// Without it the service does not parse the body at all and answers validation_failed.
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}
	const abortSignal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;

	for (let attempt = 1; ; attempt++) {
		let response: IN8nHttpFullResponse;
		options.timeout = timeoutFor(request);
		try {
			response = await withDeadline(
				this.helpers.httpRequestWithAuthentication.call(this, BOOKING_SERVICE_CREDENTIAL_TYPE, options),
				options.timeout as number,
			);
		} catch (error) {
			throw unreachableError(this, error, {
				request,
				baseUrl,
				redact,
				abortSignal,
				itemIndex,
				timeoutMs: options.timeout as number,
			});
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			return (response.body === '' ? undefined : response.body) as T;
		}
		if (status === 429) {
			const waitMs = rateLimitWaitMs(response.headers, attempt);
			const waitEndsInTime = request.deadline === undefined || Date.now() + (waitMs ?? 0) < request.deadline - 1_000;
			if (waitMs !== undefined && waitEndsInTime && attempt < (request.maxAttempts ?? MAX_RATE_LIMIT_ATTEMPTS)) {
				await abortableSleep(waitMs, abortSignal);
				continue;
			}
			throw withRetryAfter(rateLimitError(this, response, attempt, redact, itemIndex), response.headers);
		}
		throw serviceError(this, response, { request, baseUrl, redact, itemIndex });
	}
}

function timeoutFor(request: BookingServiceRequest): number {
	const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	return request.deadline === undefined ? timeoutMs : Math.max(1, Math.min(timeoutMs, request.deadline - Date.now()));
}

/**
 * The service's Retry-After as n8n 2.41 reads a failure a node declares (plain data on `failure`): its durable
 * scheduler then waits that long before the next poll instead of its own back-off.
 */
function withRetryAfter(error: Error, headers: IDataObject): Error {
	const seconds = parseRetryAfterSeconds(headers['retry-after']);
	const failure = { cause: 'rate-limited', ...(seconds === undefined ? {} : { retryAfterMs: seconds * 1000 }) };
	return Object.assign(error, { failure });
}

// n8n 2.x's `sleep` ends early when the execution is cancelled; 1.x's ignores the signal (the wait is then at most
// MAX_RETRY_AFTER_SECONDS). Typed for both.
const abortableSleep = sleep as (ms: number, abortSignal?: AbortSignal) => Promise<void>;

// n8n's HTTP helper silently drops an empty object body, and the service refuses a write without one (Cancel with no
// message sends `{}`), so it is sent as JSON text, which the helper passes through.
function jsonBody(body: IDataObject | undefined): IDataObject | string | undefined {
	return body !== undefined && Object.keys(body).length === 0 ? '{}' : body;
}

// n8n's HTTP helper stops its timer once the headers arrive: a body that trickles in byte by byte would hold the
// request (and an activation n8n waits for) for as long as it lasts. The timeout is a deadline for the whole answer.
async function withDeadline(request: Promise<unknown>, timeoutMs: number): Promise<IN8nHttpFullResponse> {
	const stop = new AbortController();
	const deadline = abortableSleep(timeoutMs, stop.signal).then(() => {
		if (!stop.signal.aborted)
			throw Object.assign(new Error(`timeout of ${timeoutMs}ms exceeded`), { code: 'ETIMEDOUT' });
	});
	deadline.catch(() => undefined); // ended early (2.x) once the answer came
	request.catch(() => undefined); // settled after the deadline: nobody waits for it any more
	try {
		return (await Promise.race([request, deadline.then(() => request)])) as IN8nHttpFullResponse;
	} finally {
		stop.abort();
	}
}
