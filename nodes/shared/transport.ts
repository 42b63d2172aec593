/**
 * The one way both Booking Service nodes talk to the service. No operation builds its own request.
 * This module sends requests; baseUrl.ts checks the credential's Base URL, rateLimit.ts decides how long to wait on
 * a 429, serviceErrors.ts turns every failure into an error a user can act on, paging.ts follows cursors.
 *
 * Exported API (the trigger codes against this; keep it stable):
 *
 *   bookingServiceApiRequest.call(ctx, { method, path, qs?, body?, headers?, timeoutMs?, scope? }, itemIndex?)
 *     → Promise<T>: the parsed JSON body of a 2xx answer (`undefined` when the body is empty).
 *     `ctx` is any of IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IPollFunctions | IWebhookFunctions.
 *     `path` is relative to the credential's base URL and starts with `/` (e.g. `/webhooks/${id}`); ids in it
 *     must already be validated. `scope` only improves the 403 message when the service does not name one.
 *     Sends JSON, authenticates through the `bookingServiceApi` credential, retries 429 (Retry-After or bounded
 *     exponential back-off with jitter) a bounded number of times.
 *     Every failure is thrown as NodeApiError (service answered / unreachable; `httpCode` is the HTTP status as
 *     a string, '429' after giving up on a rate limit, null when the service could not be reached) or
 *     NodeOperationError (bad credential base URL). `error.context.serviceErrorCode` holds the envelope's `code`
 *     (e.g. 'not_found', 'slot_unavailable') when there was one, and `error.context.serviceErrorDetails` its
 *     `details` as `{ field?, message }[]` when it had any (validation_failed names each field there). Messages
 *     and details never contain the API key, and no raw HTTP client error (which carries the Authorization
 *     header) is attached.
 *
 *   paging.ts — listAllPages.call(ctx, { path, qs?, limit?, itemIndex?, scope?, timeoutMs? }) → Promise<T[]>
 *     Follows `nextCursor` to the end (no `limit`) or until `limit` items (never requesting more than still
 *     needed), page size 1..100, stops with an error if the service repeats a cursor.
 *   iterateListPages.call(ctx, same options) → AsyncGenerator<T[]>: the same pages, each requested when the
 *     previous one is consumed (listAllPages reads through it: one paging loop).
 *   iterateListItems.call(ctx, same options) → AsyncGenerator<T>: the same items one at a time, still requested
 *     page by page.
 *
 *   serviceErrors.ts — isAlreadyGone(error) → true for 404/410 errors (for deleting something that may already be deleted).
 *   serviceErrorDetailsOf(error) → the `serviceErrorDetails` of a transport error, [] for any other error.
 *   baseUrl.ts — normaliseBaseUrl(raw) → { baseUrl } without trailing slashes, or { problem } saying what is wrong.
 *   BOOKING_SERVICE_CREDENTIAL_TYPE = 'bookingServiceApi'.
 */
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

import { normaliseBaseUrl } from './baseUrl';
import { MAX_RATE_LIMIT_ATTEMPTS, rateLimitWaitMs } from './rateLimit';
import { rateLimitError, redactorFor, serviceError, unreachableError } from './serviceErrors';


export const BOOKING_SERVICE_CREDENTIAL_TYPE = 'bookingServiceApi';

export type BookingServiceContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| IWebhookFunctions;

/** The scopes a key can hold (contract: Authentication). */
export type BookingServiceScope =
	| 'event_types:read'
	| 'bookings:read'
	| 'bookings:write'
	| 'webhooks:manage';

export interface BookingServiceRequest {
	method: IHttpRequestMethods;
	/** Relative to the base URL, starting with `/`. */
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
	headers?: IDataObject;
	/** Per-attempt timeout; defaults to DEFAULT_TIMEOUT_MS. */
	timeoutMs?: number;
	/** The scope the operation needs, named in the 403 message if the service's own message does not. */
	scope?: BookingServiceScope;
	/**
	 * How many times to send it while the service answers 429 (default MAX_RATE_LIMIT_ATTEMPTS). The trigger's
	 * activation and deactivation use 1: n8n waits for them, so they must not sit out a rate limit.
	 */
	maxAttempts?: number;
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
	const credential = await this.getCredentials<BookingServiceCredential>(
		BOOKING_SERVICE_CREDENTIAL_TYPE,
		itemIndex,
	);
	const parsedBaseUrl = normaliseBaseUrl(credential.baseUrl);
	if ('problem' in parsedBaseUrl) {
		throw new NodeOperationError(this.getNode(), parsedBaseUrl.problem, { itemIndex });
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
		timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		// The service never redirects; following one could carry the key to another host.
		disableFollowRedirect: true,
	};
	if (request.body !== undefined) {
		// Without it the service does not parse the body at all and answers validation_failed.
		options.headers = { ...options.headers, 'Content-Type': 'application/json' };
	}
	const abortSignal =
		'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;

	// Ends with a return or a throw: at most MAX_RATE_LIMIT_ATTEMPTS rounds, only 429s go round again.
	for (let attempt = 1; ; attempt++) {
		let response: IN8nHttpFullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				BOOKING_SERVICE_CREDENTIAL_TYPE,
				options,
			)) as IN8nHttpFullResponse;
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
			if (waitMs !== undefined && attempt < (request.maxAttempts ?? MAX_RATE_LIMIT_ATTEMPTS)) {
				await abortableSleep(waitMs, abortSignal);
				continue;
			}
			throw rateLimitError(this, response, attempt, redact, itemIndex);
		}
		throw serviceError(this, response, request, redact, itemIndex);
	}
}

/**
 * n8n 2.x's `sleep` ends early when the execution is cancelled; n8n 1.x's takes only the time and ignores the signal
 * (the wait is then at most MAX_RETRY_AFTER_SECONDS). Typed for both, so the nodes compile against either.
 */
const abortableSleep = sleep as (ms: number, abortSignal?: AbortSignal) => Promise<void>;

/**
 * n8n's HTTP helper silently drops an empty object body, and the service refuses a write without one (Cancel with no
 * message sends `{}`): an empty object is sent as its JSON text, which the helper passes through unchanged.
 */
function jsonBody(body: IDataObject | undefined): IDataObject | string | undefined {
	return body !== undefined && Object.keys(body).length === 0 ? '{}' : body;
}
