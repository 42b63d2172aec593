// What is wrong with the credential or the way to the service (or back, to a webhook URL), said once: the credential's
// Test button shows these sentences as they are, and every node's error leads with the same one (its description adds
// what it means for the request), so a user who tests the credential after a failed run reads the same words.

export const WRONG_KEY_MESSAGE =
	'The Booking Service rejected the API key: it is wrong, revoked or incomplete. Create a new key in the app (Settings → API keys and webhooks) and paste it into the API Key of the Booking Service API credential.';

/** A 404 where nothing in the request names a resource that could be missing: the address itself is wrong. */
export function nothingAtMessage(baseUrl: string, path: string): string {
	return `Nothing was found at ${baseUrl}${path} (HTTP 404). The Base URL in the Booking Service API credential must be the service's base URL including the version prefix /v1, e.g. https://api.example.com/v1.`;
}

/**
 * No answer within the limit that applied (`limitMs`, said to a tenth of a second): the credential's Test button and
 * every node lead with it, so the number shown is always the wait that ended.
 */
export function noAnswerMessage(baseUrl: string, request: string, limitMs: number): string {
	return `The Booking Service at ${baseUrl} did not answer ${request} within ${Math.round(limitMs / 100) / 10} s`;
}

/** The address as the user wrote it in the Base URL: host, and port when one is given. */
function addressOf(url: URL): string {
	return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
}

/**
 * No connection could be made, or it broke before an answer. `code` is the network error's code (ECONNREFUSED,
 * ENOTFOUND, EPROTO, …). No sentence may contain a code n8n knows: NodeApiError replaces a message containing
 * ECONNRESET, ENOTFOUND, … with n8n's generic text.
 */
export function connectionFailureMessage(baseUrl: string, code: string): string {
	return explainConnectionFailure(baseUrl, code) ?? unexplainedFailureMessage(baseUrl);
}

/** The sentence for the codes this package explains; undefined for others. */
export function explainConnectionFailure(baseUrl: string, code: string): string | undefined {
	const url = new URL(baseUrl);
	const address = addressOf(url);
	if (code === 'ECONNREFUSED') {
		return `Nothing accepts connections at ${address} (connection refused). Check the host and port in the Base URL of the Booking Service API credential, and that the service is running.`;
	}
	if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
		return `The host name "${url.hostname}" in the Base URL of the Booking Service API credential was not found. Check its spelling, and that this n8n can look up public host names.`;
	}
	if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|EPROTO/.test(code)) {
		return `${address} does not speak https. Check the Base URL of the Booking Service API credential: the service uses https://; only a local simulator uses http://.`;
	}
	if (/CERT|SELF_SIGNED|TLS|SSL/i.test(code)) {
		return `The https certificate of ${url.hostname} was not accepted (${code}). Check that the Base URL of the Booking Service API credential names the service's own host.`;
	}
	return undefined;
}

function unexplainedFailureMessage(baseUrl: string): string {
	return `Could not reach the Booking Service at ${addressOf(new URL(baseUrl))}. Check the Base URL of the Booking Service API credential, and that this n8n can reach the service.`;
}

/** Where the app lists an account's API keys and webhook subscriptions. */
export const IN_THE_APP = 'Settings → API keys and webhooks';

// The way back, from the service to n8n's webhook URL (the trigger's activation errors).

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

export const URL_GUIDANCE = `The Booking Service delivers only to https addresses on the public internet. Testing the trigger in the editor subscribes n8n's Test URL (…/webhook-test/…); an active workflow subscribes its Production URL (…/webhook/…). Both are built from n8n's WEBHOOK_URL setting. If n8n runs on your computer or on a private network, expose it through an https tunnel (for example cloudflared or ngrok), set the environment variable WEBHOOK_URL to the public https address (e.g. https://n8n.example.com/) and restart n8n. Behind a reverse proxy, set WEBHOOK_URL to the address the internet reaches.`;
