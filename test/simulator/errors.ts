import { ERROR_STATUS } from './policy.ts';

/** The error codes of the contract's Errors table. */
export type ErrorCode =
	| 'validation_failed'
	| 'unauthorized'
	| 'insufficient_scope'
	| 'not_found'
	| 'slot_unavailable'
	| 'rate_limited'
	| 'event_type_inactive'
	| 'booking_state_changed'
	| 'duplicate_booking'
	| 'idempotency_conflict'
	| 'bad_request'
	| 'internal_error';

/**
 * One entry of `details` on validation_failed: the field (dotted path) and what is wrong with it.
 */
export interface FieldProblem {
	field: string;
	message: string;
}

export interface ErrorEnvelope {
	error: { code: string; message: string; details?: unknown };
}

/**
 * An error answer of the API. Route code throws it; the server turns it into the envelope
 * `{ error: { code, message, details? } }` with the status the policy assigns to the code.
 */
export class ApiError extends Error {
	readonly code: ErrorCode;
	readonly status: number;
	readonly details: unknown;
	readonly headers: Record<string, string>;

	constructor(
		code: ErrorCode,
		message: string,
		extra: { details?: unknown; headers?: Record<string, string> } = {},
	) {
		super(message);
		this.code = code;
		this.status = ERROR_STATUS[code];
		this.details = extra.details;
		this.headers = extra.headers ?? {};
	}

	envelope(): ErrorEnvelope {
		return errorEnvelope(this.code, this.message, this.details);
	}
}

export function errorEnvelope(code: string, message: string, details?: unknown): ErrorEnvelope {
	return { error: details === undefined ? { code, message } : { code, message, details } };
}

export function validationFailed(problems: FieldProblem[]): ApiError {
	const fields = problems.map((problem) => problem.field).join(', ');
	return new ApiError('validation_failed', `Invalid request: ${fields}.`, { details: problems });
}

export function notFound(what: string): ApiError {
	return new ApiError('not_found', `${what} not found.`);
}
