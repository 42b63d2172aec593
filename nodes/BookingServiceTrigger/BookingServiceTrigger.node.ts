import type { IHookFunctions, IWebhookFunctions, IWebhookResponseData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { bookingEventOptions, bookingEventsSubtitle, eventTypesFilterOption, nameLanguageOption } from '../shared/descriptions';
import { CREDENTIAL_TEST_METHOD, testBookingServiceCredential } from '../shared/credentialTest';
import { searchEventTypes } from '../shared/eventTypeSearch';
import { subscribe, subscriptionExists, unsubscribe } from './lifecycle';
import { receiveDelivery } from './delivery';

export class BookingServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Service Trigger',
		name: 'bookingServiceTrigger',
		icon: { light: 'file:bookingServiceTrigger.svg', dark: 'file:bookingServiceTrigger.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1: for a start node of version 1 n8n evaluates `$parameter.options.binaryData` (its Webhook node 1)
		// on every request, about 10 ms of its main thread per delivery on 2.41 even with lazy isolates (README, Performance).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: bookingEventsSubtitle,
		// n8n's node panel shows this node and the action node (same name, without "Trigger") as one "Booking Service"
		// entry, with this description, also under "What happens next?": so it says what both nodes do.
		description:
			'Create, list and cancel bookings, check free times, and start workflows when a booking is created, rescheduled, cancelled or marked as a no-show',
		defaults: { name: 'Booking Service Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingServiceApi', required: true, testedBy: 'bookingServiceApiTest' }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answer as soon as the delivery is accepted: the service gives up after 10 seconds.
				responseMode: 'onReceived',
				// Without it n8n answers with the literal text "firstEntryJson". An empty 200 is all the service needs.
				responseData: 'noData',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Needs n8n at a public https address (WEBHOOK_URL), else use the Polling Trigger. The API key needs "Read and write".',
				name: 'urlNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: [],
				description: 'The booking changes that start the workflow',
				options: bookingEventOptions,
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Include Full Envelope',
						name: 'includeEnvelope',
						type: 'boolean',
						default: false,
						description:
							'Whether to add the whole delivery body (ID, type, createdAt, apiVersion and data) under "envelope"',
					},
					nameLanguageOption,
					eventTypesFilterOption,
				],
			},
		],
	};

	methods = {
		listSearch: { searchEventTypes },
		credentialTest: { [CREDENTIAL_TEST_METHOD]: testBookingServiceCredential },
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await subscriptionExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await subscribe.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await unsubscribe.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}
