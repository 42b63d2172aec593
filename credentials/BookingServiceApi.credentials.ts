import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
				"The service's base URL including the version prefix /v1, as given in its API documentation. A trailing slash is fine.",
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
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
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
