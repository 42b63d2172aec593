import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { localizeBooking } from '../shared/booking';
import type { Booking, NameLanguage } from '../shared/booking';
import { bookingEventOptions, nameLanguageOption } from '../shared/descriptions';
import { isResourceId } from '../shared/resourceId';
import { isAlreadyGone } from '../shared/serviceErrors';
import { BOOKING_SERVICE_CREDENTIAL_TYPE, bookingServiceApiRequest } from '../shared/transport';
import { checkAndRemember, InMemorySeenEvents, toSeenEventIds } from './dedupe';
import { parseDeliveryEnvelope, toTriggerItem } from './delivery';
import { openSecret, sealSecret } from './secretBox';
import type { SecretBinding } from './secretBox';
import { UnsealedSecretCache } from './secretCache';
import { SIGNATURE_FAILURE_MESSAGES, verifyDeliverySignature } from './signature';
import {
	explainSubscribeFailure,
	forgetSubscription,
	isSelectedEvent,
	isTestSubscription,
	normaliseEventSelection,
	readLeftoverSubscriptionIds,
	readStoredSubscription,
	sameSubscriptionTarget,
	storeLeftoverSubscriptionIds,
	storeSubscription,
	subscriptionDescription,
} from './subscription';
import type { StoredSubscription } from './subscription';

type LifecycleContext = IHookFunctions | IWebhookFunctions;

/** How many triggers this process keeps state for in memory, the ones that received deliveries last. */
const TRIGGERS_KEPT_IN_MEMORY = 200;

/**
 * Event ids seen by this n8n process, per workflow, node and subscription. The record in static data would survive a
 * restart, but n8n 2.41 does not save static data that `webhook()` changes on the production path (measured in the
 * end-to-end set-up), nor between test requests, and two copies arriving at the same moment both read it before
 * either is saved: in practice this in-memory record is what drops duplicates. Static data is still written, so n8n
 * versions that do save it get a record that outlives a restart. Bounded: 1,000 ids for a day per subscription, for
 * the 200 subscriptions used last.
 */
const seenInThisProcess = new InMemorySeenEvents(TRIGGERS_KEPT_IN_MEMORY);

/** Signing secrets `webhook()` has unsealed, so later deliveries skip the credential and the unsealing. */
const unsealedSecrets = new UnsealedSecretCache(TRIGGERS_KEPT_IN_MEMORY);

async function readApiKey(context: LifecycleContext): Promise<string> {
	const credential = await context.getCredentials<{ apiKey?: unknown }>(BOOKING_SERVICE_CREDENTIAL_TYPE);
	return typeof credential.apiKey === 'string' ? credential.apiKey.trim() : '';
}

function secretBinding(context: LifecycleContext): SecretBinding {
	return { workflowId: String(context.getWorkflow().id ?? ''), nodeId: context.getNode().id };
}

/** The stored subscription's signing secret, or undefined when it cannot be recovered (e.g. the API key changed). */
async function openStoredSecret(context: LifecycleContext, stored: StoredSubscription): Promise<string | undefined> {
	return openSecret(stored.sealedSecret, await readApiKey(context), secretBinding(context));
}

/** The subscription deliveries must be verified against, with its secret, or undefined when there is none usable. */
async function readVerifiableSubscription(
	context: IWebhookFunctions,
): Promise<{ subscriptionId: string; secret: string } | undefined> {
	const stored = readStoredSubscription(context.getWorkflowStaticData('node'));
	if (stored === undefined) return undefined;
	const binding = secretBinding(context);
	const cached = unsealedSecrets.get(binding, stored.sealedSecret);
	if (cached !== undefined) return { subscriptionId: stored.id, secret: cached };
	try {
		const secret = await openStoredSecret(context, stored);
		if (secret === undefined) return undefined;
		unsealedSecrets.remember(binding, stored.sealedSecret, secret);
		return { subscriptionId: stored.id, secret };
	} catch (error) {
		// e.g. the credential was deleted: same outcome as an unreadable secret, but worth a line in the log
		context.logger.warn(`Booking Service Trigger could not read its credential: ${(error as Error).message}`);
		return undefined;
	}
}

function selectedEvents(context: LifecycleContext): string[] {
	return normaliseEventSelection(context.getNodeParameter('events', []));
}

/**
 * Deletes a subscription on the service without ever throwing: deactivation must not be blocked by it (n8n stops
 * deactivating on a throw). 404 and 410 mean it is already gone. Any other failure is logged and the id kept, so the
 * next activation tries again instead of leaving it behind for good.
 */
async function deleteSubscription(context: IHookFunctions, subscriptionId: string, why: string): Promise<void> {
	const nodeData = context.getWorkflowStaticData('node');
	const leftovers = readLeftoverSubscriptionIds(nodeData).filter((id) => id !== subscriptionId);
	try {
		await bookingServiceApiRequest.call(context, {
			method: 'DELETE',
			path: `/webhooks/${subscriptionId}`,
			scope: 'webhooks:manage',
		});
	} catch (error) {
		if (isAlreadyGone(error)) {
			context.logger.debug(`Booking Service webhook subscription ${subscriptionId} was already deleted`);
		} else {
			leftovers.push(subscriptionId);
			context.logger.warn(
				`Could not delete Booking Service webhook subscription ${subscriptionId} (${why}): ${(error as Error).message}. ` +
					'It will be retried on the next activation; you can also delete it in the app (Settings → API keys and webhooks).',
				{ workflowId: context.getWorkflow().id, nodeName: context.getNode().name },
			);
		}
	}
	storeLeftoverSubscriptionIds(nodeData, leftovers);
}

/** Answers a delivery that must not run the workflow with 401 and says why in a short, secret-free text. */
function rejectDelivery(context: IWebhookFunctions, reason: string): IWebhookResponseData {
	context.logger.warn(`Booking Service Trigger rejected a delivery: ${reason}`, {
		workflowId: context.getWorkflow().id,
		nodeName: context.getNode().name,
	});
	const response = context.getResponseObject();
	response.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
	response.end(reason);
	return { noWebhookResponse: true };
}

/** A 2xx answer without an execution: the service must not retry what was deliberately skipped. */
function acknowledgeWithoutRun(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, skipped: reason } };
}

export class BookingServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Booking Service Trigger',
		name: 'bookingServiceTrigger',
		icon: { light: 'file:bookingServiceTrigger.svg', dark: 'file:bookingServiceTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description: 'Starts the workflow when a booking is created, rescheduled, cancelled or marked as a no-show',
		defaults: {
			name: 'Booking Service Trigger',
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: BOOKING_SERVICE_CREDENTIAL_TYPE,
				required: true,
			},
		],
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
					'The service delivers only to public https addresses. "Listen for test event" subscribes the Test URL, an active workflow the Production URL; if n8n runs locally, set WEBHOOK_URL to an https tunnel first. The API key needs the "Read and write" permission (webhooks:manage).',
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
				],
			},
		],
	};

	webhookMethods = {
		default: {
			/**
			 * True only when this node already holds a subscription for exactly this URL and event selection, with a
			 * secret it can still read. Anything else is replaced: the old subscription is deleted here, before
			 * `create` makes the new one, so a changed URL, selection or API key never leaves one behind.
			 */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const nodeData = this.getWorkflowStaticData('node');
				const stored = readStoredSubscription(nodeData);
				if (stored === undefined) return false;

				const webhookUrl = this.getNodeWebhookUrl('default') ?? '';
				if (sameSubscriptionTarget(stored, webhookUrl, selectedEvents(this))) {
					if ((await openStoredSecret(this, stored)) !== undefined) return true;
					await deleteSubscription(this, stored.id, 'its signing secret can no longer be read');
				} else {
					await deleteSubscription(this, stored.id, 'the webhook URL or the events changed');
				}
				forgetSubscription(nodeData);
				return false;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const nodeData = this.getWorkflowStaticData('node');
				const webhookUrl = this.getNodeWebhookUrl('default');
				if (webhookUrl === undefined) {
					throw new NodeOperationError(this.getNode(), 'n8n did not provide a webhook URL for this trigger');
				}
				const events = selectedEvents(this);
				if (events.length === 0) {
					throw new NodeOperationError(this.getNode(), 'Choose at least one event to listen for');
				}

				for (const leftoverId of readLeftoverSubscriptionIds(nodeData)) {
					await deleteSubscription(this, leftoverId, 'left over from an earlier deactivation');
				}

				let created: { id?: unknown; secret?: unknown } | undefined;
				try {
					created = (await bookingServiceApiRequest.call(this, {
						method: 'POST',
						path: '/webhooks',
						body: {
							url: webhookUrl,
							events,
							description: subscriptionDescription(this.getWorkflow().name, this.getNode(), isTestSubscription(this)),
						},
						scope: 'webhooks:manage',
					})) as typeof created;
				} catch (error) {
					throw explainSubscribeFailure(this.getNode(), error, webhookUrl);
				}

				if (!isResourceId(created?.id) || typeof created.secret !== 'string' || created.secret === '') {
					// Without both there is nothing to verify deliveries with; do not leave a half-made subscription.
					if (isResourceId(created?.id)) {
						await deleteSubscription(this, created.id, 'the service returned it without a signing secret');
					}
					throw new NodeApiError(
						this.getNode(),
						{ message: 'unexpected subscription response' },
						{
							message:
								'The Booking Service created no usable webhook subscription (no id or signing secret in its answer)',
							description: "Check the Base URL in the credential: it must be the service's base URL including /v1.",
						},
					);
				}

				storeSubscription(nodeData, {
					id: created.id,
					webhookUrl,
					events,
					sealedSecret: sealSecret(created.secret, await readApiKey(this), secretBinding(this)),
				});
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const nodeData = this.getWorkflowStaticData('node');
				const stored = readStoredSubscription(nodeData);
				if (stored !== undefined) {
					await deleteSubscription(this, stored.id, 'the workflow was deactivated');
				}
				forgetSubscription(nodeData);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const subscription = await readVerifiableSubscription(this);
		if (subscription === undefined) {
			return rejectDelivery(
				this,
				'No usable signing secret is stored for this trigger; deactivate and activate the workflow to subscribe again',
			);
		}

		// n8n keeps the bytes as received (a Buffer) beside the parsed body; only they can be verified.
		const rawBody: unknown = this.getRequestObject().rawBody;
		if (!(Buffer.isBuffer(rawBody) || typeof rawBody === 'string')) {
			return rejectDelivery(this, 'The raw request body is not available, so the signature cannot be checked');
		}
		const verdict = verifyDeliverySignature(
			rawBody,
			this.getHeaderData()['service-signature'],
			subscription.secret,
			Math.floor(Date.now() / 1000),
		);
		if (!verdict.valid) return rejectDelivery(this, SIGNATURE_FAILURE_MESSAGES[verdict.reason]);

		const envelope = parseDeliveryEnvelope(rawBody);
		if ('problem' in envelope) {
			// Signed by the service but not an event we understand: acknowledge, or it would be retried for days.
			this.logger.warn(`Booking Service Trigger ignored a signed delivery: ${envelope.problem}`);
			return acknowledgeWithoutRun(envelope.problem);
		}

		if (!isSelectedEvent(selectedEvents(this), envelope.type)) {
			return acknowledgeWithoutRun(`event type ${envelope.type} is not selected`);
		}

		const nodeData = this.getWorkflowStaticData('node');
		const nowMs = Date.now();
		const persisted = checkAndRemember(toSeenEventIds(nodeData.recentEventIds), envelope.id, nowMs);
		// A duplicate leaves the record as it was; not assigning it leaves static data unchanged, so n8n saves nothing.
		if (!persisted.duplicate) nodeData.recentEventIds = persisted.seen;
		const scope = `${this.getWorkflow().id}/${this.getNode().id}/${subscription.subscriptionId}`;
		const seenHere = seenInThisProcess.checkAndRemember(scope, envelope.id, nowMs);
		if (persisted.duplicate || seenHere) {
			return acknowledgeWithoutRun(`event ${envelope.id} was already received`);
		}

		const { includeEnvelope = false, nameLanguage = 'service' } = this.getNodeParameter('options', {}) as {
			includeEnvelope?: boolean;
			nameLanguage?: NameLanguage;
		};
		const booking = localizeBooking(envelope.data.booking as Booking, nameLanguage);
		const item = toTriggerItem({ ...envelope, data: { ...envelope.data, booking } }, includeEnvelope);
		return { workflowData: [this.helpers.returnJsonArray(item)] };
	}
}
