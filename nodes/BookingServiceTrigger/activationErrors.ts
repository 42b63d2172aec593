// Activation failures as messages that say what to do: a refused POST /webhooks (an undeliverable webhook URL, the
// limit of 25), or a service that could not be asked (then what was kept, and to activate again).
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { serviceErrorDetailsOf } from '../shared/serviceErrors';
import { IN_THE_APP } from '../shared/setupTexts';
import { MAX_SUBSCRIPTIONS_PER_ACCOUNT } from './records';

/** Judged locally only to explain a refusal: the request is always sent, since a local simulator may accept it. */
export function webhookUrlProblem(webhookUrl: string): string | undefined {
	let url: URL;
	try {
		url = new URL(webhookUrl);
	} catch {
		return 'it is not a valid URL';
	}
	if (url.protocol !== 'https:') return 'it uses http, and the service delivers only to https';
	const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
	const local = host === 'localhost' || /\.(localhost|local)$/.test(host) || !/[.:]/.test(host);
	if (local) return `its host "${host}" is only reachable on this machine or network`;
	if (PRIVATE_IPV4.test(host) || PRIVATE_IPV6.test(host)) return `its address ${host} is private or reserved`;
	return undefined;
}

// 0/8, 10/8, 127/8, 100.64/10, 169.254/16, 172.16/12, 192.168/16 and 224/4 up; IPv6 loopback, unspecified, unique
// local (fc00::/7), link-local (fe80::/10) and IPv4-mapped.
const PRIVATE_IPV4 =
	/^(0|10|127|100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])|169\.254|172\.(1[6-9]|2\d|3[01])|192\.168|22[4-9]|2[3-5]\d)\.[\d.]+$/;
const PRIVATE_IPV6 = /^(::1?$|f[cd]|fe[89ab]|::ffff:)/;

const URL_GUIDANCE = `The Booking Service delivers only to https addresses on the public internet. Testing the trigger in the editor subscribes n8n's Test URL (…/webhook-test/…); an active workflow subscribes its Production URL (…/webhook/…). Both are built from n8n's WEBHOOK_URL setting. If n8n runs on your computer or on a private network, expose it through an https tunnel (for example cloudflared or ngrok), set the environment variable WEBHOOK_URL to the public https address (e.g. https://n8n.example.com/) and restart n8n. Behind a reverse proxy, set WEBHOOK_URL to the address the internet reaches.`;

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
