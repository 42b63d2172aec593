// assumptions.ts cannot drift from the nodes silently: the nodes run through n8n's engine against the simulator behind
// a recorder, and every request they send must be one the assumptions state (and every stated item one they send);
// the values their descriptions offer, the scopes they name and the error codes they explain are read from the nodes
// at run time and must equal the assumptions.
import { isDeepStrictEqual } from 'node:util';

import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { ERROR_STATUS } from '../simulator/policy.ts';
import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';
import { BOOKING_EVENTS, BOOKING_STATUS_NAMES, ALL_EVENTS as NODES_ALL_EVENTS } from '../../nodes/shared/booking.ts';
import { MAX_PAGE_SIZE } from '../../nodes/shared/paging.ts';
import { RESOURCE_ID_PATTERN } from '../../nodes/shared/resourceId.ts';
import {
	ALL_EVENTS,
	BOOKING_STATUSES,
	ERRORS,
	EVENT_KINDS,
	ID_PATTERN,
	LOCALES,
	OPERATIONS,
	SCOPES,
	WEBHOOKS,
} from './assumptions.ts';
import type { NodeRuns } from './node-runs.ts';
import { parametersFor, runEveryOperation } from './node-runs.ts';
import { startRecorder } from './recorder.ts';
import type { Recorder } from './recorder.ts';
import { assumedItems, checkRequests } from './request-check.ts';

let sim: Simulator;
let recorder: Recorder;
let runs: NodeRuns;

beforeAll(async () => {
	sim = await startSimulator({ rateLimit: false, allowInsecureWebhookTargets: true });
	recorder = await startRecorder(sim.baseUrl);
	runs = await runEveryOperation(sim, recorder);
}, 120_000);

afterAll(async () => {
	await recorder?.close();
	await sim?.close();
});

describe('the requests the nodes send', () => {
	it('use only operations, parameters, headers and body fields the assumptions state, within their types, values and limits', () => {
		expect(recorder.requests.length).toBeGreaterThan(20);
		expect(checkRequests(recorder.requests).problems).toEqual([]);
	});

	it('use every operation, parameter, header and body field the assumptions state: none is stale', () => {
		const { used } = checkRequests(recorder.requests);
		// The simulator seeds seven event types, never a second page; the cursor is sent by the same paging code
		// (nodes/shared/paging.ts) whose cursor the bookings listing above does send.
		const unreachable = ['GET /event-types query cursor'];
		expect(assumedItems().filter((item) => !used.has(item) && !unreachable.includes(item))).toEqual([]);
	});

	it('come back as outputs carrying every field of the answers the assumptions say pass through', () => {
		const lastAnswer = (operation: string) =>
			recorder.requests.filter((request) => pathPattern(operation).test(`${request.method} ${request.path}`) && request.status < 300).at(-1)?.answer as IDataObject;
		/** The answer object the node outputs whole, if the assumptions say it does: the answer, or each of its items. */
		const passedOn = (operation: string) => {
			const response = OPERATIONS[operation].response;
			if (response?.passThrough) return (answer: IDataObject) => answer;
			if (response?.properties?.items?.items?.passThrough) return (answer: IDataObject) => (answer.items as IDataObject[])[0];
			return undefined;
		};
		const checked = new Set<string>();
		for (const { operation, items } of runs.outputs) {
			const answered = passedOn(operation)?.(lastAnswer(operation));
			if (answered === undefined || items.length === 0) continue;
			expect(Object.keys(items[0]), operation).toEqual(expect.arrayContaining(Object.keys(answered)));
			checked.add(operation);
		}
		expect([...checked].sort()).toEqual(Object.keys(OPERATIONS).filter((operation) => passedOn(operation) !== undefined).sort());
		// The webhook trigger (Include Full Envelope on): the body, the booking and every other key of `data` (a
		// reschedule's previous time) are in the item. Found by value, not by the item's own field names.
		const body = runs.deliveryBodies.find((candidate) => candidate.type === 'booking.rescheduled');
		const item = runs.deliveries.find((candidate) => Object.values(candidate).includes(body?.id));
		expect(item, 'the booking.rescheduled delivery ran').toBeDefined();
		const data = body!.data as IDataObject;
		const holds = (value: unknown) => Object.values(item!).some((candidate) => isDeepStrictEqual(candidate, value));
		expect([holds(body), holds(data.booking)]).toEqual([WEBHOOKS.body.passThrough, WEBHOOKS.body.properties?.data.passThrough]);
		for (const key of Object.keys(data).filter((key) => key !== 'booking')) expect(item![key], key).toEqual(data[key]);
		expect(runs.polled.length).toBeGreaterThan(0);
	});
});

function pathPattern(operation: string): RegExp {
	return new RegExp(`^${operation.replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

type Described = { properties: INodeProperties[] };

/** The option values of a parameter, found by name (inside collections) for one resource and operation. */
function optionValues(node: Described, path: string, show: Record<string, string> = {}): string[] {
	const [first, ...rest] = path.split('.');
	let property = node.properties.find(
		(candidate) =>
			candidate.name === first &&
			Object.entries(show).every(([key, value]) => candidate.displayOptions?.show?.[key]?.includes(value) ?? false),
	);
	for (const name of rest) property = (property?.options as INodeProperties[] | undefined)?.find((option) => option.name === name);
	expect(property, `${path} in ${JSON.stringify(show)}`).toBeDefined();
	return ((property!.options ?? []) as INodePropertyOptions[]).map((option) => String(option.value));
}

const sorted = (values: readonly string[]) => [...values].sort();

describe('the values the nodes offer', () => {
	const action = new BookingService().description;
	const trigger = new BookingServiceTrigger().description;
	const polling = new BookingServicePollingTrigger().description;
	const bookings = OPERATIONS['GET /bookings'].query!;

	it('equal the assumed sort orders, booking statuses, locales, events and active filter', () => {
		const getMany = { resource: 'booking', operation: 'getMany' };
		expect(sorted(optionValues(action, 'sort.order', getMany))).toEqual(sorted(bookings.sort.enum!));
		expect(sorted(optionValues(action, 'filters.status', getMany))).toEqual(sorted(bookings.status.enum!));
		const create = { resource: 'booking', operation: 'create' };
		expect(sorted(optionValues(action, 'additionalFields.locale', create))).toEqual(sorted(LOCALES));
		const subscribe = { resource: 'webhookSubscription', operation: 'create' };
		expect(sorted(optionValues(action, 'events', subscribe))).toEqual(sorted(OPERATIONS['POST /webhooks'].body!.events.items!.enum!));
		expect(sorted(optionValues(trigger, 'events'))).toEqual(sorted([ALL_EVENTS, ...WEBHOOKS.kinds]));
		// The polling trigger also tells changes no delivery reports (completed, other updates).
		expect(optionValues(polling, 'events')).toEqual(expect.arrayContaining(optionValues(trigger, 'events')));
		const active = optionValues(action, 'active', { resource: 'eventType', operation: 'getMany' });
		expect(active.filter((value) => value !== 'all')).toEqual(OPERATIONS['GET /event-types'].query!.active.enum);
	});

	it('name translations in the assumed languages, besides the name the service chose', () => {
		const nameLanguage = (action.properties.flatMap((property) => (property.options ?? []) as INodeProperties[]))
			.find((option) => option.name === 'nameLanguage');
		const values = ((nameLanguage?.options ?? []) as INodePropertyOptions[]).map((option) => String(option.value));
		expect(values.filter((value) => value !== nameLanguage?.default)).toEqual(LOCALES);
	});

	it('use the assumed ids, page size, invite expiry and event names in their code', () => {
		expect(RESOURCE_ID_PATTERN.source).toBe(ID_PATTERN);
		expect(MAX_PAGE_SIZE).toBe(bookings.limit.maximum);
		expect(sorted(Object.keys(BOOKING_STATUS_NAMES))).toEqual(sorted(BOOKING_STATUSES));
		expect([...BOOKING_EVENTS]).toEqual(EVENT_KINDS);
		expect(NODES_ALL_EVENTS).toBe(ALL_EVENTS);
		const expiry = (action.properties.find((property) => property.name === 'additionalFields' && property.displayOptions?.show?.resource?.includes('invite'))
			?.options as INodeProperties[]).find((option) => option.name === 'expiresInDays');
		const limits = OPERATIONS['POST /invites'].body!.expiresInDays;
		expect([expiry?.typeOptions?.minValue, expiry?.typeOptions?.maxValue]).toEqual([limits.minimum, limits.maximum]);
	});
});

/** The action node's error for one operation when the service answers with `fault`. */
async function errorText(operation: string, fault: { status: number; code: string }): Promise<string> {
	const zero = '0'.repeat(24);
	sim.control.addFault({ method: '*', path: '*', count: 1, kind: 'status', message: 'Refused.', ...fault });
	const parameters = parametersFor(operation, { eventTypeId: zero, start: '2030-01-07T09:00:00Z', bookingId: zero, subscriptionId: zero });
	const result = await runWorkflow({
		nodes: [bookingServiceNode('Node', parameters, { onError: 'continueRegularOutput' })],
		credentials: { bookingServiceApi: { apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl } },
	});
	sim.control.clearFaults();
	const error = result.items.Node?.[0]?.json.error as IDataObject | undefined;
	expect(error, `${operation} answered ${fault.code}`).toBeDefined();
	return `${error!.message} ${error!.description}`;
}

describe('the nodes explain', () => {
	it('the error codes the assumptions list in their own words, and no others', async () => {
		const explained: string[] = [];
		for (const [code, status] of Object.entries(ERROR_STATUS)) {
			if (status === 429) continue; // waited out and retried whatever the code: the next test
			const text = await errorText('GET /bookings/{id}', { status, code });
			const unknown = await errorText('GET /bookings/{id}', { status, code: 'zz_unknown_code' });
			if (text !== unknown.replaceAll('zz_unknown_code', code)) explained.push(code);
		}
		expect(sorted(explained)).toEqual(sorted(ERRORS.explainedCodes));
		expect(Object.entries(ERROR_STATUS).filter(([code]) => !explained.includes(code)).map(([code]) => code))
			.toEqual(expect.arrayContaining(Object.keys(ERRORS.byStatus)));
	});

	it('a 429 by waiting for its Retry-After and asking again', async () => {
		sim.control.clearRequests();
		sim.control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'rate_limit', retryAfterSeconds: 1 });
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Node', parametersFor('GET /me', { eventTypeId: '', start: '', bookingId: '', subscriptionId: '' }))],
			credentials: { bookingServiceApi: { apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl } },
		});
		expect(result.error).toBeUndefined();
		expect(sim.control.requests().map((request) => request.status)).toEqual([ERRORS.byStatus.rate_limited, 200]);
	});

	it('a missing scope by naming the scope the assumptions state for each operation', async () => {
		for (const [operation, assumed] of Object.entries(OPERATIONS)) {
			const text = await errorText(operation, { status: 403, code: 'insufficient_scope' });
			expect(SCOPES.find((scope) => text.includes(scope)) ?? null, operation).toBe(assumed.scope);
		}
	});
});
