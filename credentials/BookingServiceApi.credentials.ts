import type {
	IAuthenticateGeneric,
	Icon,
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

	documentationUrl = 'https://github.com/booking-service/n8n-nodes-booking-service/blob/main/docs/credential.md';

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
}
