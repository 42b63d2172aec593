// Every way the nodes reach the service, run through n8n's engine against the simulator behind the recorder: each
// action-node operation with every optional field and filter set (long values at their limits), the list searches,
// the webhook trigger's whole life with real signed deliveries, and the polling trigger's polls and test event.
import type { IDataObject } from 'n8n-workflow';

import { createLoadOptionsContext, bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { PollHarness } from '../harness/poller.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import type { Simulator } from '../simulator/index.ts';
import { searchBookings } from '../../nodes/BookingService/methods/listSearch.ts';
import { searchEventTypes } from '../../nodes/shared/eventTypeSearch.ts';
import type { Recorder } from './recorder.ts';

export interface NodeRuns {
	/** What each action-node run output, by the operation (`METHOD /path`) it exercised. */
	outputs: Array<{ operation: string; items: IDataObject[] }>;
	/** What the webhook trigger's executions output, one item each. */
	deliveries: IDataObject[];
	/** The bodies of the simulator's deliveries as the trigger received them. */
	deliveryBodies: IDataObject[];
	/** What the polling trigger emitted (polls and the test event). */
	polled: IDataObject[];
}

const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** What the parameters of each operation refer to; any 24-hex ids will do where the answer is not needed. */
export interface Ids {
	eventTypeId: string;
	start: string;
	bookingId: string;
	subscriptionId: string;
}

/** The action node's parameters for each operation, with every optional field set, long values at their limits. */
export function parametersFor(operation: string, ids: Ids): Record<string, unknown> {
	const eventType = byId(ids.eventTypeId);
	const bookingId = byId(ids.bookingId);
	const parameters: Record<string, Record<string, unknown>> = {
		'GET /me': { resource: 'account', operation: 'get' },
		'GET /event-types': { resource: 'eventType', operation: 'getMany', active: 'all', returnAll: true },
		'GET /event-types/{id}/slots': { resource: 'eventType', operation: 'getSlots', eventType, from: day(1), to: day(14) },
		'GET /bookings': {
			resource: 'booking',
			operation: 'getMany',
			returnAll: true,
			filters: {
				email: 'contract@example.com',
				eventType,
				startFrom: `${day(0)}T00:00:00Z`,
				startTo: `${day(30)}T00:00:00Z`,
				status: ['confirmed', 'held'],
				updatedSince: `${day(-1)}T00:00:00Z`,
			},
			sort: { order: '-start' },
		},
		'POST /bookings': {
			resource: 'booking',
			operation: 'create',
			eventType,
			start: ids.start,
			bookerName: 'N'.repeat(120),
			bookerEmail: 'contract@example.com',
			bookerTimeZone: 'Europe/Berlin',
			additionalFields: { locale: 'ja', phone: '+'.padEnd(40, '8'), notes: 'n'.repeat(2000), notify: true },
		},
		'GET /bookings/{id}': { resource: 'booking', operation: 'get', bookingId },
		'POST /bookings/{id}/cancel': { resource: 'booking', operation: 'cancel', bookingId, message: 'm'.repeat(1000) },
		'POST /invites': {
			resource: 'invite',
			operation: 'create',
			eventType,
			additionalFields: { name: 'N'.repeat(120), email: 'invitee@example.com', expiresInDays: 90 },
		},
		'POST /webhooks': {
			resource: 'webhookSubscription',
			operation: 'create',
			url: `http://127.0.0.1:9/${'u'.repeat(1900)}`,
			events: ['booking.created', 'booking.no_show'],
			additionalFields: { description: 'd'.repeat(200) },
		},
		'DELETE /webhooks/{id}': {
			resource: 'webhookSubscription',
			operation: 'delete',
			webhookSubscriptionId: ids.subscriptionId,
		},
	};
	const found = parameters[operation];
	if (found === undefined) throw new Error(`no action-node parameters for ${operation}`);
	return found;
}

export async function runEveryOperation(sim: Simulator, recorder: Recorder): Promise<NodeRuns> {
	const apiKey = sim.apiKeys.readWrite;
	const credentials = { bookingServiceApi: { apiKey, baseUrl: recorder.baseUrl } };
	const outputs: NodeRuns['outputs'] = [];
	const run = async (operation: string, parameters: Record<string, unknown>): Promise<IDataObject[]> => {
		const result = await runWorkflow({ nodes: [bookingServiceNode('Node', parameters)], credentials });
		if (result.error !== undefined) throw new Error(`${operation} failed: ${result.error.message}`);
		const items = (result.items.Node ?? []).map((item) => item.json);
		outputs.push({ operation, items });
		return items;
	};

	// A workflow name longer than the service takes in a description: the trigger must shorten it.
	const trigger = await startTriggerHarness({
		baseUrl: recorder.baseUrl,
		apiKey,
		parameters: { events: ['*'], options: { includeEnvelope: true } },
		workflowName: 'Contract check '.repeat(20),
	});
	const poller = new PollHarness({ baseUrl: recorder.baseUrl, apiKey, parameters: { events: ['*'], options: {} } });
	try {
		await trigger.activate();
		await poller.poll();

		const ids: Ids = { eventTypeId: sim.control.eventType('intro-call').id, start: '', bookingId: '', subscriptionId: '' };
		const runOperation = async (operation: string) => await run(operation, parametersFor(operation, ids));
		await runOperation('GET /me');
		await runOperation('GET /event-types');
		const starts = (await runOperation('GET /event-types/{id}/slots'))[0].slots as string[];
		ids.start = starts[0];
		ids.bookingId = String((await runOperation('POST /bookings'))[0].id);
		await runOperation('GET /bookings');
		// More bookings than one page holds, so a listing follows nextCursor.
		sim.control.generateBookings({ count: 120 });
		await run('GET /bookings', { resource: 'booking', operation: 'getMany', returnAll: true });
		await runOperation('GET /bookings/{id}');
		sim.control.reschedule(ids.bookingId, { start: starts[starts.length - 1], by: 'host' });
		await runOperation('POST /bookings/{id}/cancel');
		await runOperation('POST /invites');
		ids.subscriptionId = String((await runOperation('POST /webhooks'))[0].id);
		await runOperation('DELETE /webhooks/{id}');

		const context = await createLoadOptionsContext(bookingServiceNode('Node', { resource: 'booking', operation: 'get' }), credentials);
		await searchBookings.call(context, 'contract@example.com');
		const firstPage = await searchBookings.call(context, 'Guest');
		await searchBookings.call(context, 'Guest', firstPage.paginationToken);
		await searchEventTypes.call(context, 'intro');

		await sim.control.drainDeliveries();
		await poller.poll();
		const sample = await poller.fetchTestEvent();
		await trigger.deactivate();
		return {
			outputs,
			deliveries: trigger.executions.flatMap((execution) => execution.items.map((item) => item.json)),
			deliveryBodies: trigger.received.map((request) => JSON.parse(request.rawBody.toString('utf8')) as IDataObject),
			polled: [...poller.emitted, ...sample].map((item) => item.json),
		};
	} finally {
		await trigger.close();
	}
}
