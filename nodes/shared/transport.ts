/**
 * The one way both Booking Service nodes talk to the service. No operation builds its own request.
 *
 * Exported API (the trigger codes against this; keep it stable):
 *
 *   bookingServiceApiRequest.call(ctx, { method, path, qs?, body?, headers?, timeoutMs?, scope? }, itemIndex?)
 *     → Promise<T>: the parsed JSON body of a 2xx answer (`undefined` when the body is empty).
 *     `ctx` is any of IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions.
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
 *   listAllPages.call(ctx, { path, qs?, limit?, itemIndex?, scope?, timeoutMs? }) → Promise<T[]>
 *     Follows `nextCursor` to the end (no `limit`) or until `limit` items (never requesting more than still
 *     needed), page size 1..100, stops with an error if the service repeats a cursor.
 *   iterateListPages.call(ctx, same options) → AsyncGenerator<T[]>: the same pages, each requested when the
 *     previous one is consumed (listAllPages reads through it: one paging loop).
 *   iterateListItems.call(ctx, same options) → AsyncGenerator<T>: the same items one at a time, still requested
 *     page by page.
 *
 *   isAlreadyGone(error) → true for 404/410 errors (for deleting something that may already be deleted).
 *   serviceErrorDetailsOf(error) → the `serviceErrorDetails` of a transport error, [] for any other error.
 *   normaliseBaseUrl(raw) → { baseUrl } without trailing slashes, or { problem } saying what is wrong.
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
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, randomInt, sleep } from 'n8n-workflow';

import { RESOURCE_ID_IN_PATH } from './resourceId';

export const BOOKING_SERVICE_CREDENTIAL_TYPE = 'bookingServiceApi';

export type BookingServiceContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
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
}

interface BookingServiceCredential {
	apiKey: string;
	baseUrl: string;
}

interface Page<T> {
	items: T[];
	nextCursor: string | null;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_PAGE_SIZE = 100;
/** One first try plus four retries: enough to ride out a short burst, short enough to fail while the user waits. */
export const MAX_RATE_LIMIT_ATTEMPTS = 5;
/** A Retry-After longer than this is not waited out inside an execution: the node fails and says how long. */
export const MAX_RETRY_AFTER_SECONDS = 60;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 16_000;
/** 10,000 pages of 100 is a million items: past that something is wrong with the cursor, not the account. */
const MAX_PAGES = 10_000;

const SCOPE_PATTERN = /\b(event_types:read|bookings:read|bookings:write|webhooks:manage)\b/;
const READ_WRITE_HINT =
	'Create a key with the "Read and write" permission in the app (Settings → API keys and webhooks) and put it in the Booking Service API credential. Read-only keys can list and read, but not create or cancel bookings, create invites or manage webhooks.';

/**
 * The credential's base URL without trailing slashes, or a sentence saying what is wrong with it. Kept free of
 * n8n contexts so the trigger and the tests can use it directly.
 */
export function normaliseBaseUrl(raw: unknown): { baseUrl: string } | { problem: string } {
	const trimmed = typeof raw === 'string' ? raw.trim() : '';
	if (trimmed === '') {
		return { problem: 'The Base URL in the Booking Service API credential is empty' };
	}
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		return {
			problem: `The Base URL "${trimmed}" in the Booking Service API credential is not a valid URL; use the service's base URL including /v1, e.g. https://api.example.com/v1`,
		};
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return {
			problem: `The Base URL in the Booking Service API credential must start with https:// (or http:// for a local simulator), not ${url.protocol}//`,
		};
	}
	if (url.username !== '' || url.password !== '') {
		// Userinfo would leak into error messages that show the URL; the key belongs in the API Key field.
		return {
			problem:
				'The Base URL in the Booking Service API credential must not contain a user name or password; put the key in the API Key field',
		};
	}
	if (url.search !== '' || url.hash !== '') {
		return {
			problem:
				'The Base URL in the Booking Service API credential must not contain a query (?…) or fragment (#…)',
		};
	}
	return { baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

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
			throw unreachableError(this, error, { request, baseUrl, redact, abortSignal, itemIndex });
		}

		const status = response.statusCode;
		if (status >= 200 && status < 300) {
			return (response.body === '' ? undefined : response.body) as T;
		}
		if (status === 429) {
			const waitMs = rateLimitWaitMs(response.headers, attempt);
			if (waitMs !== undefined && attempt < MAX_RATE_LIMIT_ATTEMPTS) {
				await sleep(waitMs, abortSignal);
				continue;
			}
			throw rateLimitError(this, response, attempt, redact, itemIndex);
		}
		throw serviceError(this, response, request, redact, itemIndex);
	}
}

/**
 * n8n's HTTP helper silently drops an empty object body, and the service refuses a write without one (Cancel with no
 * message sends `{}`): an empty object is sent as its JSON text, which the helper passes through unchanged.
 */
function jsonBody(body: IDataObject | undefined): IDataObject | string | undefined {
	return body !== undefined && Object.keys(body).length === 0 ? '{}' : body;
}

/**
 * Milliseconds to wait before retrying a 429, or undefined when the service asks for longer than we will wait.
 * Retry-After (seconds or an HTTP date) wins; without it, full-jitter exponential back-off.
 */
function rateLimitWaitMs(headers: IDataObject, attempt: number): number | undefined {
	const retryAfterSeconds = parseRetryAfterSeconds(headers['retry-after']);
	if (retryAfterSeconds !== undefined) {
		return retryAfterSeconds > MAX_RETRY_AFTER_SECONDS ? undefined : retryAfterSeconds * 1000;
	}
	const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
	return randomInt(ceiling / 2, ceiling + 1);
}

export function parseRetryAfterSeconds(value: unknown): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+$/.test(text)) return Number(text);
	// Otherwise only an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse would also take "-1" as a year.
	if (!/^[A-Za-z]{3}, /.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * One entry of an error envelope's `details`. The contract says only that `validation_failed` details name each
 * field, not how; an entry naming no field keeps its text in `message`, one naming no problem has an empty `message`.
 */
export type ServiceErrorDetail = { field?: string; message: string };

/** The parts of an error envelope we rely on; anything else in the body is ignored. */
interface ServiceErrorEnvelope {
	code: string;
	message: string;
	details: ServiceErrorDetail[];
}

function readEnvelope(body: unknown): ServiceErrorEnvelope | undefined {
	if (typeof body !== 'object' || body === null) return undefined;
	const error = (body as { error?: unknown }).error;
	if (typeof error !== 'object' || error === null) return undefined;
	const { code, message, details } = error as Record<string, unknown>;
	if (typeof code !== 'string' || typeof message !== 'string') return undefined;
	return { code, message, details: Array.isArray(details) ? details.map(readDetail) : [] };
}

/** Accepts strings and objects with any of the usual keys, since the entries' shape is not shown. */
function readDetail(entry: unknown): ServiceErrorDetail {
	if (typeof entry === 'string') return { message: entry };
	if (typeof entry !== 'object' || entry === null) return { message: String(entry) };
	const record = entry as Record<string, unknown>;
	const field = record.field ?? record.path ?? record.name ?? record.param;
	const problem = record.message ?? record.reason ?? record.error ?? record.rule;
	if (field === undefined || field === null) {
		return { message: problem === undefined ? JSON.stringify(record) : String(problem) };
	}
	return {
		field: Array.isArray(field) ? field.join('.') : String(field),
		message: problem === undefined ? '' : String(problem),
	};
}

type Redact = (text: string) => string;

/** Defence in depth: whatever the service or the network stack says, the key never reaches an error. */
function redactorFor(apiKey: unknown): Redact {
	const key = typeof apiKey === 'string' ? apiKey.trim() : '';
	if (key.length < 4) return (text) => text;
	return (text) => text.split(key).join('[redacted]');
}

interface ErrorText {
	message: string;
	description: string;
}

function explainServiceError(
	status: number,
	envelope: ServiceErrorEnvelope | undefined,
	request: BookingServiceRequest,
): ErrorText {
	if (envelope === undefined) {
		if (status === 404) {
			return {
				message: `The Booking Service has no ${request.method} ${request.path} (HTTP 404)`,
				description:
					"The answer was not the service's error format, so the Base URL is probably wrong. In the Booking Service API credential it must be the service's base URL including /v1, e.g. https://api.example.com/v1.",
			};
		}
		if (status >= 500) return serverFailure(status, 'no error details');
		return {
			message: `The Booking Service answered HTTP ${status} without its usual error details`,
			description:
				"Check the Base URL in the Booking Service API credential: it must be the service's base URL including /v1.",
		};
	}

	const serviceSays = `The service says: "${envelope.message}"`;
	switch (envelope.code) {
		case 'unauthorized':
			return {
				message: 'The Booking Service rejected the API key (it is wrong, revoked or malformed)',
				description: `Keys are shown only once and stop working as soon as they are revoked. Create a new key in the app (Settings → API keys and webhooks) and paste it into the Booking Service API credential. ${serviceSays}`,
			};
		case 'insufficient_scope': {
			const scope = SCOPE_PATTERN.exec(envelope.message)?.[1] ?? request.scope;
			return {
				message: `The API key lacks the ${scope ? `"${scope}" ` : ''}permission this operation needs`,
				description: `${READ_WRITE_HINT} ${serviceSays}`,
			};
		}
		case 'not_found':
			if (!RESOURCE_ID_IN_PATH.test(request.path) && request.method === 'GET') {
				// Nothing in this request names a resource that could be missing: the address itself is wrong.
				return {
					message: `The Booking Service has no ${request.method} ${request.path} at this Base URL (HTTP 404)`,
					description: `The Base URL in the Booking Service API credential must be the service's base URL including /v1, e.g. https://api.example.com/v1. ${serviceSays}`,
				};
			}
			return {
				message: `Not found: ${envelope.message}`,
				description:
					'Check the ID: it may have been deleted, or belong to another account than the API key. If every operation fails with 404, the Base URL is wrong: it must include /v1.',
			};
		case 'slot_unavailable':
			return {
				message: 'The requested start time is no longer free; no booking was made',
				description: `Get the event type's available slots again and choose another start time. ${serviceSays}`,
			};
		case 'validation_failed':
			return {
				message: `The service rejected the request: ${describeValidationDetails(envelope)}`,
				description:
					'Correct the listed fields. The node checks documented limits before sending; this rule is one the service enforces beyond them.',
			};
		case 'event_type_inactive':
			return {
				message: 'The event type is inactive, so it cannot be booked or invited to',
				description: `Activate it in the app, or choose an active event type. ${serviceSays}`,
			};
		case 'idempotency_conflict':
			return {
				message: 'The Idempotency Key was already used for a different booking request',
				description: `A key may only be reused for the identical request. Use a new key, or clear the Idempotency Key option so the node derives one per item and execution. ${serviceSays}`,
			};
		case 'booking_state_changed':
			return {
				message: `The booking changed while this request ran: ${envelope.message}`,
				description:
					'Get the booking again to see its current status, then decide whether to retry.',
			};
		case 'duplicate_booking':
			return {
				message: `The service refused a duplicate booking: ${envelope.message}`,
				description:
					'A booking for this person and time probably exists already; look it up with Booking → Get Many.',
			};
		default:
			if (status >= 500) return serverFailure(status, envelope.code);
			return {
				message: `The Booking Service refused the request: ${envelope.message}`,
				description: `Error code "${envelope.code}" (HTTP ${status}).`,
			};
	}
}

function serverFailure(status: number, code: string): ErrorText {
	return {
		message: `The Booking Service failed to handle the request (HTTP ${status}, ${code})`,
		description:
			'This is a problem on the service side; try again later. Retry On Fail in the node settings is safe for reads, for Cancel and for Create Booking, which sends an Idempotency-Key so a retry never books twice.',
	};
}

function describeValidationDetails(envelope: ServiceErrorEnvelope): string {
	if (envelope.details.length === 0) return envelope.message;
	return envelope.details
		.map(({ field, message }) =>
			field === undefined ? message : message === '' ? field : `${field}: ${message}`,
		)
		.join('; ');
}

function serviceError(
	ctx: BookingServiceContext,
	response: IN8nHttpFullResponse,
	request: BookingServiceRequest,
	redact: Redact,
	itemIndex: number | undefined,
): NodeApiError {
	const envelope = readEnvelope(response.body);
	const { message, description } = explainServiceError(response.statusCode, envelope, request);
	return buildApiError(ctx, redact, {
		httpCode: String(response.statusCode),
		envelope,
		message,
		description,
		itemIndex,
	});
}

function rateLimitError(
	ctx: BookingServiceContext,
	response: IN8nHttpFullResponse,
	attempts: number,
	redact: Redact,
	itemIndex: number | undefined,
): NodeApiError {
	const retryAfter = parseRetryAfterSeconds(response.headers['retry-after']);
	const tooLong = retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_SECONDS;
	const message = tooLong
		? `The Booking Service is rate limiting and asks to wait ${retryAfter} seconds, longer than the node waits (${MAX_RETRY_AFTER_SECONDS} s)`
		: `The Booking Service kept rate limiting the requests (HTTP 429 on ${attempts} attempts)`;
	return buildApiError(ctx, redact, {
		httpCode: '429',
		envelope: readEnvelope(response.body),
		message,
		description:
			'The request budget of this API key is used up. Run the workflow again later, process fewer items per run, or spread runs out; other workflows using the same key share the budget.',
		itemIndex,
	});
}

/** Every text that reaches the error, including the service's own details, goes through `redact` here. */
function buildApiError(
	ctx: BookingServiceContext,
	redact: Redact,
	parts: {
		httpCode: string | null;
		envelope: ServiceErrorEnvelope | undefined;
		message: string;
		description: string;
		itemIndex: number | undefined;
	},
): NodeApiError {
	// Only our own text and the envelope's parts go in: NodeApiError copies its error response into `messages` and
	// the execution data, so the raw body or HTTP client error must never be passed here.
	const message = redact(parts.message);
	const errorResponse: JsonObject = {
		httpCode: parts.httpCode,
		code: parts.envelope?.code ?? null,
		message,
	};
	const error = new NodeApiError(ctx.getNode(), errorResponse, {
		message,
		description: redact(parts.description),
		httpCode: parts.httpCode ?? undefined,
		itemIndex: parts.itemIndex,
	});
	if (parts.envelope) {
		error.context.serviceErrorCode = parts.envelope.code;
		if (parts.envelope.details.length > 0) {
			error.context.serviceErrorDetails = parts.envelope.details.map(({ field, message }) =>
				field === undefined
					? { message: redact(message) }
					: { field: redact(field), message: redact(message) },
			);
		}
	}
	return error;
}

/**
 * The request never got an HTTP answer: refused, reset, timed out, DNS… n8n wraps the HTTP client's error (which
 * holds the request with its Authorization header); only the error code and our own text are kept.
 */
function unreachableError(
	ctx: BookingServiceContext,
	error: unknown,
	attempt: {
		request: BookingServiceRequest;
		baseUrl: string;
		redact: Redact;
		abortSignal: AbortSignal | undefined;
		itemIndex: number | undefined;
	},
): Error {
	const { request, baseUrl, redact, itemIndex } = attempt;
	if (error instanceof NodeOperationError) return error; // e.g. no credential selected: already clear and safe
	if (attempt.abortSignal?.aborted) {
		return new NodeOperationError(
			ctx.getNode(),
			'The execution was cancelled while waiting for the Booking Service',
			{
				itemIndex,
			},
		);
	}
	const cause = (error as { cause?: unknown })?.cause ?? error;
	const code = String((cause as { code?: unknown })?.code ?? '');
	const causeMessage = String((cause as { message?: unknown })?.message ?? '');
	const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout/i.test(causeMessage);
	const seconds = (request.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000;
	const isWrite = request.method !== 'GET';
	// The service may have acted on a write whose answer never came; only a keyed request is safe to resend.
	const message = timedOut
		? `The Booking Service at ${baseUrl} did not answer ${request.method} ${request.path} within ${seconds} s`
		: `Could not reach the Booking Service at ${baseUrl}`;
	const description = !timedOut
		? `The connection failed${code ? ` (${code.toLowerCase()})` : ''}. Check the Base URL in the Booking Service API credential and that the service is reachable from this n8n instance.`
		: !isWrite
			? 'Try again later, or turn on Retry On Fail in the node settings.'
			: request.headers?.['Idempotency-Key'] !== undefined
				? 'The service may still have processed the request. Retrying is safe: the request carries an Idempotency-Key, so Retry On Fail never books twice.'
				: 'The service may still have processed the request; check before running it again.';
	return buildApiError(ctx, redact, {
		httpCode: null,
		envelope: undefined,
		message,
		description,
		itemIndex,
	});
}

export function isAlreadyGone(error: unknown): boolean {
	const httpCode = (error as { httpCode?: unknown })?.httpCode;
	return httpCode === '404' || httpCode === '410';
}

/** The envelope's details a transport error carries, or [] for any other error. */
export function serviceErrorDetailsOf(error: unknown): ServiceErrorDetail[] {
	const details = (error as { context?: { serviceErrorDetails?: unknown } })?.context
		?.serviceErrorDetails;
	if (!Array.isArray(details)) return [];
	return details.filter(
		(detail): detail is ServiceErrorDetail =>
			typeof detail?.message === 'string' &&
			(detail.field === undefined || typeof detail.field === 'string'),
	);
}

export interface ListAllPagesOptions {
	path: string;
	qs?: IDataObject;
	/** Stop after this many items; omit to read every page (Return All). */
	limit?: number;
	itemIndex?: number;
	scope?: BookingServiceScope;
	timeoutMs?: number;
}

export async function listAllPages<T = IDataObject>(
	this: BookingServiceContext,
	options: ListAllPagesOptions,
): Promise<T[]> {
	const collected: T[] = [];
	for await (const page of iterateListPages.call(this, options)) {
		for (const item of page) collected.push(item as T);
	}
	return collected;
}

/**
 * The items of a list operation one at a time, for a caller that consumes them one by one (a merge of several
 * listings). Pages are still requested only as they are consumed, so stopping early causes no further requests.
 */
export async function* iterateListItems<T = IDataObject>(
	this: BookingServiceContext,
	options: ListAllPagesOptions,
): AsyncGenerator<T> {
	for await (const page of iterateListPages.call(this, options)) yield* page as T[];
}

/**
 * The pages of a list operation, each requested only when the previous one has been consumed: a caller that stops
 * early causes no further requests. Whole pages rather than items, so a caller that keeps everything pays one await
 * per page, not per item. Each page asks for at most as many items as are still allowed by `limit` (a Limit of 150
 * asks for 100 and then 50), and a page longer than asked for is cut to the limit.
 */
export async function* iterateListPages<T = IDataObject>(
	this: BookingServiceContext,
	options: ListAllPagesOptions,
): AsyncGenerator<T[]> {
	const { limit, itemIndex } = options;
	const seenCursors = new Set<string>();
	let yielded = 0;
	let cursor: string | undefined;

	for (let page = 0; page < MAX_PAGES; page++) {
		const remaining = limit === undefined ? MAX_PAGE_SIZE : limit - yielded;
		if (remaining <= 0) return;
		const response: unknown = await bookingServiceApiRequest.call(
			this,
			{
				method: 'GET',
				path: options.path,
				qs: {
					...options.qs,
					limit: pageSizeFor(remaining),
					...(cursor === undefined ? {} : { cursor }),
				},
				scope: options.scope,
				timeoutMs: options.timeoutMs,
			},
			itemIndex,
		);
		if (!isPage<T>(response)) {
			throw new NodeApiError(
				this.getNode(),
				{ message: 'unexpected list response' },
				{
					message: `The Booking Service answered GET ${options.path} with something other than a page of results`,
					description:
						"Check the Base URL in the credential: it must be the service's base URL including /v1.",
					itemIndex,
				},
			);
		}
		if (limit !== undefined && response.items.length > remaining) {
			// More than asked for: the limit is reached inside this page, so its cursor is not needed.
			yield response.items.slice(0, remaining);
			return;
		}
		yielded += response.items.length;
		yield response.items;
		const next = response.nextCursor;
		if (next === null || next === undefined || next === '') return;
		if (seenCursors.has(next)) {
			throw new NodeApiError(
				this.getNode(),
				{ message: 'repeated cursor' },
				{
					message: `The Booking Service returned the same page cursor twice for GET ${options.path}; stopped to avoid an endless loop`,
					description: `${yielded} items were read before the repeat. Try again later; if it persists, report it to the service.`,
					itemIndex,
				},
			);
		}
		seenCursors.add(next);
		cursor = next;
	}
	throw new NodeApiError(
		this.getNode(),
		{ message: 'too many pages' },
		{
			message: `Stopped after ${MAX_PAGES} pages of GET ${options.path}`,
			description: 'Narrow the filters or set a Limit.',
			itemIndex,
		},
	);
}

/** Page size for the next request: as many as still needed, within the service's 1..100. */
export function pageSizeFor(remaining: number): number {
	return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(remaining)));
}

function isPage<T>(value: unknown): value is Page<T> {
	return (
		typeof value === 'object' &&
		value !== null &&
		Array.isArray((value as Page<T>).items) &&
		(typeof (value as Page<T>).nextCursor === 'string' ||
			(value as Page<T>).nextCursor === null ||
			(value as Page<T>).nextCursor === undefined)
	);
}
