import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

// The nodes' `normaliseBaseUrl` rules as an n8n expression (a credential test is declarative), so a Base URL the nodes
// refuse fails the test with their sentence; test/unit/credential-base-url.test.ts keeps the two in step.
const BASE_URL_CHECKED_FOR_TEST = `={{ (() => {
	const raw = String($credentials.baseUrl ?? '').trim();
	const where = 'The Base URL in the Booking Service API credential';
	if (raw === '') throw new Error(where + ' is empty');
	const parts = /^([a-z][a-z0-9+.-]*):\\/\\/([^/?#]*)([^?#]*)([?#].*)?$/i.exec(raw);
	if (!parts || parts[2] === '') throw new Error(where + ' is not a valid URL; use the service\\'s base URL including /v1, e.g. https://api.example.com/v1');
	const scheme = parts[1].toLowerCase();
	if (scheme !== 'https' && scheme !== 'http') throw new Error(where + ' must start with https://');
	if (parts[2].includes('@')) throw new Error(where + ' must not contain a user name or password; put the key in the API Key field');
	if (parts[4] !== undefined) throw new Error(where + ' must not contain a query (?…) or fragment (#…)');
	const host = parts[2].replace(/:\\d*$/, '').toLowerCase();
	const loopback = host === 'localhost' || host === '[::1]' || /^127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$/.test(host);
	if (scheme === 'http' && !loopback) throw new Error(where + ' must start with https://; http:// is only for a local simulator on localhost, 127.0.0.1 or [::1], so the API key never travels unencrypted');
	return raw.replace(/\\/+$/, '');
})() }}`;

export class BookingServiceApi implements ICredentialType {
	name = 'bookingServiceApi';

	displayName = 'Booking Service API';

	icon: Icon = {
		light: 'file:../nodes/BookingService/bookingService.svg',
		dark: 'file:../nodes/BookingService/bookingService.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-booking-service#credential';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'A personal API key, created in the app under Settings → API keys and webhooks. It is shown only once. Choose "Read and write" to create or cancel bookings, create invites and use the trigger; "Read only" is enough for listing and reading.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. https://api.example.com/v1',
			description:
				"The service's base URL including the version prefix /v1, as given in its API documentation. It must use https:// — http:// is accepted only for a local simulator (localhost, 127.0.0.1, [::1]). A trailing slash is fine.",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				// Exactly one space after "Bearer": the service rejects anything else as a malformed key.
				Authorization: '=Bearer {{$credentials.apiKey.trim()}}',
			},
		},
	};

	// GET /me works for every valid key whatever its scopes, so it tests the key and the base URL and nothing else.
	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_CHECKED_FOR_TEST,
			url: '/me',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was rejected: it is wrong, revoked or incomplete. Keys are shown only once — create a new one in the app (Settings → API keys and webhooks) and paste it here.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API key was refused for this account. Create a new key in the app (Settings → API keys and webhooks) and paste it here.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						"Nothing found at this Base URL. It must be the service's base URL including the version prefix, e.g. https://api.example.com/v1.",
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message: 'The service is rate limiting this key right now. Wait a minute and test again.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 500,
					message: 'The service failed to answer (HTTP 500). Try again later.',
				},
			},
		],
	};
}
