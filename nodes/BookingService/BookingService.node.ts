import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TEST_METHOD, testBookingServiceCredential } from '../shared/credentialTest';
import * as account from './actions/account';
import * as booking from './actions/booking';
import * as eventType from './actions/eventType';
import * as invite from './actions/invite';
import { router } from './actions/router';
import * as webhookSubscription from './actions/webhookSubscription';
import { listSearch, loadOptions } from './methods';

export class BookingService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Service',
		name: 'bookingService',
		icon: { light: 'file:bookingService.svg', dark: 'file:bookingService.dark.svg' },
		group: ['transform'],
		version: 1,
		// The operation and resource by the names the panel shows, as n8n's own nodes show them ("Get Many: Booking");
		// test/engine/methods-and-credential.test.ts checks every pair against the options.
		subtitle:
			'={{ ({ get: "Get", getMany: "Get Many", getSlots: "Get Available Slots", create: "Create", cancel: "Cancel", delete: "Delete" })[$parameter["operation"]] + ": " + ({ account: "Account", booking: "Booking", eventType: "Event Type", invite: "Invite", webhookSubscription: "Webhook Subscription" })[$parameter["resource"]] }}',
		description:
			'Read and change bookings of a Booking Service account: list and create bookings, cancel them, check availability, send single-use booking links and manage webhook subscriptions',
		defaults: { name: 'Booking Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'bookingServiceApi', required: true, testedBy: 'bookingServiceApiTest' }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account', description: 'The account the API key belongs to' },
					{ name: 'Booking', value: 'booking', description: 'A booked appointment' },
					{
						name: 'Event Type',
						value: 'eventType',
						description: 'Something people can book, with its availability',
					},
					{ name: 'Invite', value: 'invite', description: 'A single-use booking link' },
					{
						name: 'Webhook Subscription',
						value: 'webhookSubscription',
						description: 'An endpoint that receives booking events',
					},
				],
				default: 'booking',
			},
			...account.description,
			...booking.description,
			...eventType.description,
			...invite.description,
			...webhookSubscription.description,
		],
	};

	methods = {
		listSearch,
		loadOptions,
		credentialTest: { [CREDENTIAL_TEST_METHOD]: testBookingServiceCredential },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
