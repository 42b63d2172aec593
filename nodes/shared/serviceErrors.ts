// Every way a request can fail, as an n8n error a user can act on. The API key is redacted from every text, and no raw
// HTTP client error (which carries the Authorization header) is ever attached.
import type { IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MAX_RETRY_AFTER_SECONDS, parseRetryAfterSeconds } from './rateLimit';
import { RESOURCE_ID_IN_PATH } from './resourceId';
import type { BookingServiceContext, BookingServiceRequest } from './transport';

const SCOPE_PATTERN = /\b(event_types:read|bookings:read|bookings:write|webhooks:manage)\b/;
const READ_WRITE_HINT =
	'Create a key with the "Read and write" permission in the app (Settings → API keys and webhooks) and put it in the Booking Service API credential. Read-only keys can list and read, but not create or cancel bookings, create invites or manage webhooks.';

/** The contract says only that `validation_failed` details name each field, not how. */
export type ServiceErrorDetail = { field?: string; message: string };

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

export type Redact = (text: string) => string;

/** Defence in depth: whatever the service or the network stack says, the key never reaches an error. */
export function redactorFor(apiKey: unknown): Redact {
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
				message: `Not found: ${sentence(envelope.message)} Check the ID, or look it up again (Get Many).`,
				description:
					'Check the ID: it may have been deleted, or belong to another account than the API key. If every operation fails with 404, the Base URL is wrong: it must include /v1.',
			};
		case 'slot_unavailable':
			return {
				message:
					'The requested start time is no longer free; no booking was made. Get the available slots again and offer another time.',
				description: `Get the event type's available slots again and choose another start time. ${serviceSays}`,
			};
		case 'validation_failed':
			return {
				message: `The service rejected the request: ${sentence(describeValidationDetails(envelope))} Nothing was changed; correct these values and try again.`,
				description:
					'Correct the listed fields. The node checks documented limits before sending; this rule is one the service enforces beyond them.',
			};
		case 'event_type_inactive':
			return {
				message:
					'The event type is inactive, so it cannot be booked or invited to; no booking was made. Choose an active event type.',
				description: `Activate it in the app, or choose an active event type. ${serviceSays}`,
			};
		case 'idempotency_conflict':
			return {
				message: 'The Idempotency Key was already used for a different booking request',
				description: `A key may only be reused for the identical request. Use a new key, or clear the Idempotency Key option so the node derives one per item and execution. ${serviceSays}`,
			};
		case 'booking_state_changed':
			return {
				message: `The booking changed while this request ran: ${sentence(envelope.message)} Get the booking again to see its status before retrying.`,
				description:
					'Get the booking again to see its current status, then decide whether to retry.',
			};
		case 'duplicate_booking':
			return {
				message: `The service refused a duplicate booking: ${sentence(envelope.message)} A booking for this person and time probably exists; look it up with Get Many.`,
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

/** The service's text as a sentence, so the next step can follow it: an AI agent sees only the message. */
function sentence(text: string): string {
	return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
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

export function serviceError(
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

export function rateLimitError(
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

/** n8n wraps the HTTP client's error, which holds the Authorization header: only its code and our own text are kept. */
export function unreachableError(
	ctx: BookingServiceContext,
	error: unknown,
	attempt: {
		request: BookingServiceRequest;
		baseUrl: string;
		redact: Redact;
		abortSignal: AbortSignal | undefined;
		itemIndex: number | undefined;
		timeoutMs: number;
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
	const seconds = attempt.timeoutMs / 1000;
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
