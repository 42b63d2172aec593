// Every way a request can fail, as an n8n error a user can act on (the texts are in serviceErrorTexts.ts). The API key
// is redacted from every text, and no raw HTTP client error (which carries the Authorization header) is ever attached.
import type { IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { adviseAgent } from './agentAdvice';
import { MAX_RETRY_AFTER_SECONDS, parseRetryAfterSeconds } from './rateLimit';
import { explainServiceError, rateLimitText, unreachableText } from './serviceErrorTexts';
import type { ErrorText, ServiceErrorDetail, ServiceErrorEnvelope } from './serviceErrorTexts';
import type { BookingServiceContext, BookingServiceRequest } from './transport';

export type { ServiceErrorDetail } from './serviceErrorTexts';

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

export function serviceError(
	ctx: BookingServiceContext,
	response: IN8nHttpFullResponse,
	attempt: { request: BookingServiceRequest; baseUrl: string; redact: Redact; itemIndex: number | undefined },
): NodeApiError {
	const { request, baseUrl, redact, itemIndex } = attempt;
	const envelope = readEnvelope(response.body);
	return buildApiError(ctx, redact, {
		httpCode: String(response.statusCode),
		envelope,
		text: explainServiceError(response.statusCode, envelope, request, baseUrl),
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
	return buildApiError(ctx, redact, {
		httpCode: '429',
		envelope: readEnvelope(response.body),
		text: rateLimitText(retryAfter, MAX_RETRY_AFTER_SECONDS, attempts),
		itemIndex,
	});
}

/** The service's refusal told more precisely by an operation (Create's 409): the same status and code, a new text. */
export function withServiceErrorText(
	ctx: BookingServiceContext,
	error: NodeApiError,
	text: ErrorText,
	itemIndex: number | undefined,
): NodeApiError {
	const code = error.context.serviceErrorCode;
	return buildApiError(ctx, (unchanged) => unchanged, {
		httpCode: error.httpCode,
		envelope: typeof code === 'string' ? { code, message: '', details: [] } : undefined,
		text,
		itemIndex,
	});
}

function buildApiError(
	ctx: BookingServiceContext,
	redact: Redact,
	parts: {
		httpCode: string | null;
		envelope: ServiceErrorEnvelope | undefined;
		text: ErrorText;
		itemIndex: number | undefined;
	},
): NodeApiError {
	// Only our own text and the envelope's parts go in: NodeApiError copies its error response into `messages` and
	// the execution data, so the raw body or HTTP client error must never be passed here.
	const message = redact(parts.text.message);
	const errorResponse: JsonObject = {
		httpCode: parts.httpCode,
		code: parts.envelope?.code ?? null,
		message,
	};
	const error = new NodeApiError(ctx.getNode(), errorResponse, {
		message,
		description: redact(parts.text.description),
		httpCode: parts.httpCode ?? undefined,
		itemIndex: parts.itemIndex,
	});
	if (parts.text.agentAdvice !== undefined) adviseAgent(error, parts.text.agentAdvice);
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
	return buildApiError(ctx, redact, {
		httpCode: null,
		envelope: undefined,
		// Only the action node runs on items (as a node or an AI tool), and only it has a Timeout option to raise.
		text: unreachableText(request, baseUrl, { timedOut, code, limitMs: attempt.timeoutMs, timeoutOption: 'getInputData' in ctx }),
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
