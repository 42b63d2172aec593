// Turns a refused POST /webhooks into a message that says what to do (an undeliverable webhook URL, the limit of 25).
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { serviceErrorDetailsOf } from '../shared/serviceErrors';
import type { ServiceErrorDetail } from '../shared/serviceErrors';
import { MAX_SUBSCRIPTIONS_PER_ACCOUNT } from './subscription';

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
	if (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host.endsWith('.local') ||
		(!host.includes('.') && !host.includes(':'))
	) {
		return `its host "${host}" is only reachable on this machine or network`;
	}
	if (isPrivateAddressLiteral(host)) return `its address ${host} is private or reserved`;
	return undefined;
}

function isPrivateAddressLiteral(host: string): boolean {
	const ipv4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
	if (ipv4) {
		const [a, b] = [Number(ipv4[1]), Number(ipv4[2])];
		return (
			a === 0 ||
			a === 10 ||
			a === 127 ||
			(a === 100 && b >= 64 && b <= 127) ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168) ||
			a >= 224
		);
	}
	// IPv6 literals: loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), IPv4-mapped.
	return host.includes(':') && /^(::1?$|f[cd]|fe[89ab]|::ffff:)/.test(host);
}

const URL_GUIDANCE = [
	'The Booking Service delivers only to https addresses on the public internet.',
	'Testing the trigger in the editor subscribes n8n\'s Test URL (…/webhook-test/…); an active workflow subscribes its Production URL (…/webhook/…). Both are built from n8n\'s WEBHOOK_URL setting.',
	'If n8n runs on your computer or on a private network, expose it through an https tunnel (for example cloudflared or ngrok), set the environment variable WEBHOOK_URL to the public https address (e.g. https://n8n.example.com/) and restart n8n.',
	'Behind a reverse proxy, set WEBHOOK_URL to the address the internet reaches.',
].join(' ');

// The contract does not name the limit's error code, so a 4xx other than 401, 403, 404 and 429 whose message speaks of
// a subscription limit counts.
export function isSubscriptionLimit(error: unknown): boolean {
	const { message, httpCode } = error as { message?: unknown; httpCode?: unknown };
	return (
		typeof httpCode === 'string' &&
		httpCode.startsWith('4') &&
		!['401', '403', '404', '429'].includes(httpCode) &&
		typeof message === 'string' &&
		/subscriptions?\b.*\b(limit|maximum|at most|too many|25)\b|\b(limit|maximum|at most|too many)\b.*\bsubscriptions?/i.test(
			message,
		)
	);
}

function namesUrlField(field: string): boolean {
	return field.split(/[.[\]]/).some((segment) => segment.toLowerCase() === 'url');
}

export function explainSubscribeFailure(node: INode, error: unknown, webhookUrl: string): NodeApiError {
	const original = error as { message?: unknown; description?: unknown; httpCode?: unknown; context?: IDataObject };
	const serviceMessage = typeof original.message === 'string' ? original.message : String(error);
	const serviceDescription = typeof original.description === 'string' ? original.description : '';
	const httpCode = typeof original.httpCode === 'string' ? original.httpCode : undefined;
	const serviceCode = original.context?.serviceErrorCode;
	const localProblem = webhookUrlProblem(webhookUrl);

	// When the service names the fields it refused, only those count. Without names (the contract does not show the
	// details' shape) the message is searched for "url", and a URL that looks unreachable is taken as the cause.
	const fieldDetails = serviceErrorDetailsOf(error).filter(
		(detail): detail is Required<ServiceErrorDetail> => detail.field !== undefined,
	);
	const urlDetail = fieldDetails.find((detail) => namesUrlField(detail.field));
	const urlRefused =
		serviceCode === 'validation_failed' &&
		(fieldDetails.length > 0 ? urlDetail !== undefined : /\burl\b/i.test(serviceMessage) || localProblem !== undefined);
	if (urlRefused) {
		const reason = localProblem ?? urlDetail?.message;
		const why = reason ? `: ${reason}` : '';
		return subscribeError(node, httpCode, {
			message: `The Booking Service refused this trigger's webhook URL ${webhookUrl}${why}`,
			description: `${URL_GUIDANCE} (${serviceMessage})`,
		});
	}

	if (isSubscriptionLimit(error)) {
		return subscribeError(node, httpCode, {
			message: `The Booking Service account already has the maximum of ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhook subscriptions`,
			description: `Delete subscriptions you no longer need in the app (Settings → API keys and webhooks), then activate the workflow again. Every active workflow with this trigger uses one subscription, and so does each test run of the trigger while it listens. (${serviceMessage})`,
		});
	}

	return subscribeError(node, httpCode, {
		message: `Could not subscribe to Booking Service events: ${serviceMessage}`,
		description: [
			serviceDescription,
			localProblem === undefined
				? ''
				: `Note also that the webhook URL ${webhookUrl} will not work: ${localProblem}. ${URL_GUIDANCE}`,
		]
			.filter((part) => part !== '')
			.join(' '),
	});
}

function subscribeError(
	node: INode,
	httpCode: string | undefined,
	text: { message: string; description: string },
): NodeApiError {
	return new NodeApiError(node, { message: text.message, httpCode: httpCode ?? null } as JsonObject, {
		message: text.message,
		description: text.description,
		httpCode,
	});
}
