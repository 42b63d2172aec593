// What each refusal or failure of the service says: the message names what is wrong and what to change, for whoever
// reads it (a workflow builder, an operator); the description adds the detail. `agentAdvice` is the next step for a
// model that called the node as an AI agent's tool, added to the message only there (see agentAdvice.ts).
import { RESOURCE_ID_IN_PATH } from './resourceId';
import {
	connectionFailureMessage,
	explainConnectionFailure,
	noAnswerMessage,
	nothingAtMessage,
	WRONG_KEY_MESSAGE,
} from './setupTexts';
import type { BookingServiceRequest } from './transport';

/** The contract says only that `validation_failed` details name each field, not how. */
export type ServiceErrorDetail = { field?: string; message: string };

export interface ServiceErrorEnvelope {
	code: string;
	message: string;
	details: ServiceErrorDetail[];
}

export interface ErrorText {
	message: string;
	description: string;
	agentAdvice?: string;
}

const SCOPE_PATTERN = /\b(event_types:read|bookings:read|bookings:write|webhooks:manage)\b/;
const READ_WRITE_HINT =
	'Create a key with the "Read and write" permission in the app (Settings → API keys and webhooks) and put it in the Booking Service API credential. Read-only keys can list and read, but not create or cancel bookings, create invites or manage webhooks.';
const BASE_URL_HINT =
	"The Base URL in the Booking Service API credential must be the service's base URL including /v1, e.g. https://api.example.com/v1.";

/** Setup problems a customer cannot help with: a model should say so instead of retrying or asking them. */
export const SETUP_PROBLEM_ADVICE =
	'This is a setup problem of the booking system, not of the request: tell the customer booking is not possible right now, and do not retry.';
const TRY_LATER_ADVICE =
	'The booking system is not answering right now: tell the customer to try again a little later; nothing was booked or changed.';

export function explainServiceError(
	status: number,
	envelope: ServiceErrorEnvelope | undefined,
	request: BookingServiceRequest,
	baseUrl: string,
): ErrorText {
	if (envelope === undefined) {
		if (status === 404) {
			return {
				message: nothingAtMessage(baseUrl, request.path),
				description: "The answer was not the service's error format, so the Base URL is probably wrong.",
				agentAdvice: SETUP_PROBLEM_ADVICE,
			};
		}
		if (status >= 500) return serverFailure(status, 'no error details');
		return {
			message: `The Booking Service answered HTTP ${status} without its usual error details: check the Base URL in the credential`,
			description: BASE_URL_HINT,
			agentAdvice: SETUP_PROBLEM_ADVICE,
		};
	}

	const serviceSays = `The service says: "${envelope.message}"`;
	switch (envelope.code) {
		case 'unauthorized':
			return {
				message: WRONG_KEY_MESSAGE,
				description: `Keys are shown only once and stop working as soon as they are revoked. ${serviceSays}`,
				agentAdvice: SETUP_PROBLEM_ADVICE,
			};
		case 'insufficient_scope': {
			const scope = SCOPE_PATTERN.exec(envelope.message)?.[1] ?? request.scope;
			return {
				message: `The API key lacks the ${scope ? `"${scope}" ` : ''}permission this operation needs: use a key with "Read and write"`,
				description: `${READ_WRITE_HINT} ${serviceSays}`,
				agentAdvice: SETUP_PROBLEM_ADVICE,
			};
		}
		case 'not_found':
			if (!RESOURCE_ID_IN_PATH.test(request.path) && request.method === 'GET') {
				// Nothing in this request names a resource that could be missing: the address itself is wrong.
				return {
					message: nothingAtMessage(baseUrl, request.path),
					description: serviceSays,
					agentAdvice: SETUP_PROBLEM_ADVICE,
				};
			}
			return {
				message: `Not found: ${sentence(envelope.message)} Check the ID, or look it up again (Get Many).`,
				description:
					"The ID may be mistyped, deleted, or belong to another account than the API key. If every operation fails with 404, the Base URL is wrong: test the credential.",
				agentAdvice: 'Look it up again with the tool that lists them instead of using this ID; never make an ID up.',
			};
		case 'slot_unavailable':
			return {
				message:
					'The requested start time is not free; no booking was made. Choose another start from the free ones (Event Type → Get Available Slots).',
				description: `It may never have been a free time (off the event type's times, outside the host's hours), or it was booked since the slots were read. ${serviceSays}`,
				agentAdvice: 'Get the available slots again and offer the customer another time.',
			};
		case 'validation_failed':
			return {
				message: `The service refused these values: ${sentence(describeValidationDetails(envelope))} Nothing was changed; correct the values it names.`,
				description:
					'The node checks the documented limits before sending; this is a rule the service enforces beyond them.',
				agentAdvice: 'Ask the customer for the values it names again, then retry once.',
			};
		case 'event_type_inactive':
			return {
				message:
					'The event type is inactive, so it cannot be booked or invited to; no booking was made. Choose an active event type, or activate it in the app.',
				description: serviceSays,
				agentAdvice: SETUP_PROBLEM_ADVICE,
			};
		case 'idempotency_conflict':
			return {
				message:
					'The Idempotency Key was already used for a different booking request: use a new key, or clear the Idempotency Key option',
				description: `A key may only be repeated with the identical request. Without the option the node derives a key per item and execution. ${serviceSays}`,
				agentAdvice: SETUP_PROBLEM_ADVICE,
			};
		case 'booking_state_changed':
			return {
				message: `The booking changed while this request ran: ${sentence(envelope.message)} Get the booking again to see its status before retrying.`,
				description: 'Someone (the customer, the host or the service) changed it at the same moment.',
				agentAdvice: 'Look the booking up again and tell the customer its current status before doing anything else.',
			};
		case 'duplicate_booking':
			return {
				message: `The service refused a duplicate booking: ${sentence(envelope.message)} A booking for this person and time probably exists; look it up with Get Many.`,
				description: serviceSays,
				agentAdvice: "Look up the customer's bookings by email: the booking probably exists already.",
			};
		default:
			if (status >= 500) return serverFailure(status, envelope.code);
			return {
				message: `The Booking Service refused the request: ${envelope.message}`,
				description: `Error code "${envelope.code}" (HTTP ${status}).`,
			};
	}
}

/** The service's text as a sentence, so what to do can follow it. */
function sentence(text: string): string {
	return /[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`;
}

function serverFailure(status: number, code: string): ErrorText {
	return {
		message: `The Booking Service failed to handle the request (HTTP ${status}, ${code}); try again later`,
		description:
			'This is a problem on the service side. Retry On Fail in the node settings is safe for reads, for Cancel and for Create Booking, which sends an Idempotency-Key so a retry never books twice.',
		agentAdvice: TRY_LATER_ADVICE,
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

export function rateLimitText(retryAfter: number | undefined, maxWaitSeconds: number, attempts: number): ErrorText {
	const tooLong = retryAfter !== undefined && retryAfter > maxWaitSeconds;
	return {
		message: tooLong
			? `The Booking Service is rate limiting and asks to wait ${retryAfter} seconds, longer than the node waits (${maxWaitSeconds} s): run it again later`
			: `The Booking Service kept rate limiting the requests (HTTP 429 on ${attempts} attempts): run it again later`,
		description:
			'The request budget of this API key is used up. Run the workflow again later, process fewer items per run, or spread runs out; other workflows using the same key share the budget.',
		agentAdvice: TRY_LATER_ADVICE,
	};
}

/** A request that got no answer. The service may have acted on a write whose answer never came. */
export function unreachableText(
	request: BookingServiceRequest,
	baseUrl: string,
	failure: { timedOut: boolean; code: string; limitMs: number; timeoutOption: boolean },
): ErrorText {
	if (!failure.timedOut) {
		return {
			message: connectionFailureMessage(baseUrl, failure.code),
			// A code the sentence does not explain stays as a clue, in lower case: NodeApiError would replace a message
			// holding it, and only the message, with n8n's generic text.
			description: `The node got no answer from the service${explainConnectionFailure(baseUrl, failure.code) === undefined && failure.code ? ` (${failure.code.toLowerCase()})` : ''}. The credential's Test button checks the same address and key.`,
			agentAdvice: TRY_LATER_ADVICE,
		};
	}
	const message = noAnswerMessage(baseUrl, `${request.method} ${request.path}`, failure.limitMs);
	if (request.method === 'GET') {
		return {
			message: `${message}; try again later${failure.timeoutOption ? ', or raise the Timeout option' : ''}`,
			description: failure.timeoutOption
				? 'Turn on Retry On Fail in the node settings to try again automatically.'
				: 'The service may be slow or overloaded right now.',
			agentAdvice: TRY_LATER_ADVICE,
		};
	}
	if (request.headers?.['Idempotency-Key'] !== undefined) {
		return {
			message: `${message}; it may still have acted: run it again to be sure (it never books twice)`,
			description:
				'Retrying is safe: the request carries an Idempotency-Key, so Retry On Fail returns the booking the first try made instead of booking twice.',
			agentAdvice: 'Try the same call once more: it never books twice. If it fails again, tell the customer to try later.',
		};
	}
	return {
		message: `${message}; it may still have acted: check before running it again`,
		description: 'The service may have processed the request without its answer arriving.',
		agentAdvice: 'Check the result (look the booking up again) before trying anything else.',
	};
}
