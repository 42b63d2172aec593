// The credential's Base URL, checked for every request and by the credential's Test button (credentialTest.ts), which
// shows each problem as it is: every problem is a whole sentence.

/** Plain http only to this machine (the simulator): a real key must never cross a network in clear text. */
function isLoopbackHost(hostname: string): boolean {
	return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

export function normaliseBaseUrl(raw: unknown): { baseUrl: string } | { problem: string } {
	const trimmed = typeof raw === 'string' ? raw.trim() : '';
	if (trimmed === '') {
		return { problem: 'The Base URL in the Booking Service API credential is empty.' };
	}
	if (!trimmed.includes('://')) {
		// "127.0.0.1:5680/v1" or "api.example.com/v1": the address without its scheme.
		return {
			problem: `The Base URL "${trimmed}" in the Booking Service API credential must start with https:// (http:// only for a local simulator on this machine); write the whole address, e.g. https://api.example.com/v1.`,
		};
	}
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		return {
			problem: `The Base URL "${trimmed}" in the Booking Service API credential is not a valid URL; use the service's base URL including /v1, e.g. https://api.example.com/v1.`,
		};
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		return { problem: 'The Base URL in the Booking Service API credential must start with https://.' };
	}
	if (url.username !== '' || url.password !== '') {
		// Userinfo would leak into error messages that show the URL; the key belongs in the API Key field.
		return {
			problem:
				'The Base URL in the Booking Service API credential must not contain a user name or password; put the key in the API Key field.',
		};
	}
	if (url.search !== '' || url.hash !== '') {
		return {
			problem:
				'The Base URL in the Booking Service API credential must not contain a query (?…) or fragment (#…).',
		};
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		return {
			problem:
				'The Base URL in the Booking Service API credential must start with https://; http:// is only for a local simulator on localhost, 127.0.0.1 or [::1], so the API key never travels unencrypted.',
		};
	}
	const baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
	if (!baseUrl.endsWith('/v1')) {
		// The contract's base URL always ends in /v1; without it every request would answer 404 (not found).
		return {
			problem: `The Base URL "${baseUrl}" in the Booking Service API credential must end with the version prefix /v1, e.g. https://api.example.com/v1.`,
		};
	}
	return { baseUrl };
}
