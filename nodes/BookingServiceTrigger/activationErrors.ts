// Activation failures as messages that say what to do: a refused POST /webhooks (an undeliverable webhook URL, the
// limit of 25), or a service that could not be asked (then what was kept, and to activate again).
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { serviceErrorDetailsOf } from '../shared/serviceErrors';
import { IN_THE_APP, URL_GUIDANCE, webhookUrlProblem } from '../shared/setupTexts';
import { MAX_SUBSCRIPTIONS_PER_ACCOUNT } from './records';

// The contract does not name the limit's error code: a 4xx other than 401, 403, 404 and 429 speaking of a limit.
const LIMIT =
	/subscriptions?\b.*\b(limit|maximum|at most|too many|25)\b|\b(limit|maximum|at most|too many)\b.*\bsubscriptions?/i;
function isSubscriptionLimit({ message, httpCode }: { message?: unknown; httpCode?: unknown }): boolean {
	const refused = typeof httpCode === 'string' && /^4(?!01|03|04|29)/.test(httpCode);
	return refused && typeof message === 'string' && LIMIT.test(message);
}

export function explainSubscribeFailure(node: INode, error: unknown, webhookUrl: string): NodeApiError {
	const original = error as { message?: unknown; description?: unknown; httpCode?: unknown; context?: IDataObject };
	const serviceMessage = typeof original.message === 'string' ? original.message : String(error);
	const localProblem = webhookUrlProblem(webhookUrl);

	// When the service names the fields it refused, only those count. Without names (the contract does not show the
	// details' shape) the message is searched for "url", and a URL that looks unreachable is taken as the cause.
	const fields = serviceErrorDetailsOf(error).filter((detail) => detail.field !== undefined);
	const urlDetail = fields.find((detail) => detail.field!.split(/[.[\]]/).some((part) => part.toLowerCase() === 'url'));
	const urlRefused =
		original.context?.serviceErrorCode === 'validation_failed' &&
		(fields.length > 0 ? urlDetail !== undefined : /\burl\b/i.test(serviceMessage) || localProblem !== undefined);
	if (urlRefused) {
		const why = (localProblem ?? urlDetail?.message) ? `: ${localProblem ?? urlDetail?.message}` : '';
		const message = `The Booking Service refused this trigger's webhook URL ${webhookUrl}${why}`;
		return activationError(node, original, message, `${URL_GUIDANCE} (${serviceMessage})`);
	}
	if (isSubscriptionLimit(original)) {
		const message = `The Booking Service account already has the maximum of ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhook subscriptions`;
		const description = `Delete subscriptions you no longer need in the app (${IN_THE_APP}), then activate the workflow again. Every active workflow with this trigger uses one subscription, and so does each test run of the trigger while it listens. (${serviceMessage})`;
		return activationError(node, original, message, description);
	}
	const urlNote =
		localProblem && `Note also that the webhook URL ${webhookUrl} will not work: ${localProblem}. ${URL_GUIDANCE}`;
	const prior = typeof original.description === 'string' ? original.description : '';
	const description = [prior, urlNote].filter(Boolean).join(' ');
	const message = `Could not subscribe to Booking Service events: ${serviceMessage}`;
	return activationError(node, original, message, description);
}

/** The service did not answer (a 429, a 5xx, a timeout): nothing was decided, so nothing was forgotten or deleted. */
export function unansweredError(node: INode, error: unknown, what: string, kept: string): NodeApiError {
	const { message } = error as { message?: unknown };
	const description = `${kept} Activate the workflow again in a moment; if it keeps failing, check the Base URL in the credential and whether the Booking Service is reachable.`;
	return activationError(node, error, `${what}: ${typeof message === 'string' ? message : String(error)}`, description);
}

function activationError(node: INode, cause: unknown, message: string, description: string): NodeApiError {
	const code = (cause as { httpCode?: unknown }).httpCode;
	const httpCode = typeof code === 'string' ? code : undefined;
	const options = { message, description, httpCode };
	return new NodeApiError(node, { message, httpCode: httpCode ?? null } as JsonObject, options);
}
