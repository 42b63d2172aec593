// The trigger's whole life in a real n8n: publishing the workflow subscribes n8n's Production URL on the simulator,
// the simulator's signed deliveries (real HTTP from the simulator to n8n) start one execution per event, duplicates,
// replays and forgeries start none, and unpublishing deletes the subscription — also after 50 quick cycles.
//
// Executions are counted through n8n's public API: a bounded poll waits until the expected number have finished, then
// the counts are asserted exactly. The expected number comes from the events sent, never from a count taken at the
// answer: n8n 1.x answers a trigger "on received" before it records the execution (2.16 and later record it first).
import diagnosticsChannel from 'node:diagnostics_channel';
import { createHmac, randomBytes } from 'node:crypto';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Execution } from '../n8n/client.ts';
import { startSimulator, type Booking, type Simulator, type WebhookEvent } from '../simulator/index.ts';
import { n8n } from './n8n.ts';
import { removeFromN8n, simulatorCredential, TRIGGER, triggerWorkflow, webhookIdOf } from './workflows.ts';
import { service } from './service.ts';

const client = n8n();
let simulator: Simulator;
let credential: { id: string; name: string };
const workflowIds: string[] = [];
/** Published workflows of the running test: unpublished after it whatever happened, so no test sees another's. */
const published = new Set<string>();

const EVENTS = ['booking.cancelled', 'booking.created', 'booking.no_show', 'booking.rescheduled'];
/** How long executions may take to appear and finish; a bound, not an expectation. */
const EXECUTIONS_LIMIT_MS = 30_000;

// --- Deliveries as the simulator sent them, captured from undici's diagnostics channels (headers and body bytes) ---

interface CapturedDelivery {
	/** Header names and values exactly as the simulator passed them to undici. */
	headers: string[];
	body: Buffer;
}
const captured: CapturedDelivery[] = [];
const capturing = new WeakMap<object, { chunks: Buffer[] }>();

function onRequestCreate(message: unknown): void {
	const { request: outgoing } = message as { request: { headers: string[] } };
	const headers = outgoing.headers;
	const isDelivery = headers.some(
		(value, index) =>
			index % 2 === 0 && value.toLowerCase() === 'user-agent' && headers[index + 1] === 'Service-Webhooks/1',
	);
	if (!isDelivery) return;
	const chunks: Buffer[] = [];
	capturing.set(outgoing, { chunks });
	const delivery: CapturedDelivery = {
		headers: [...headers],
		get body() {
			return Buffer.concat(chunks);
		},
	};
	captured.push(delivery);
}

function onBodyChunkSent(message: unknown): void {
	const { request: outgoing, chunk } = message as { request: object; chunk: Uint8Array | string };
	capturing.get(outgoing)?.chunks.push(Buffer.from(chunk));
}

// --- set-up ---

beforeAll(async () => {
	diagnosticsChannel.subscribe('undici:request:create', onRequestCreate);
	diagnosticsChannel.subscribe('undici:request:bodyChunkSent', onBodyChunkSent);
	// Real clock: the trigger checks a delivery's signed timestamp against n8n's clock.
	simulator = await startSimulator({ allowInsecureWebhookTargets: true });
	credential = await simulatorCredential(client, simulator, 'Booking Service (trigger test)');
});

afterAll(async () => {
	await removeFromN8n(client, { published, workflowIds, credential });
	await simulator?.close();
	diagnosticsChannel.unsubscribe('undici:request:create', onRequestCreate);
	diagnosticsChannel.unsubscribe('undici:request:bodyChunkSent', onBodyChunkSent);
});

afterEach(async () => {
	for (const id of published) await unpublish(id);
});

beforeEach(() => {
	simulator.control.setDeliveryMode({ duplicates: 0, shuffle: false });
	simulator.control.clearRequests();
	captured.length = 0;
});

// --- helpers ---

interface TriggerWorkflow {
	id: string;
	/** n8n's Production URL for the trigger: `${WEBHOOK_URL}webhook/<webhookId>/webhook`. */
	productionUrl: string;
}

/** Creates (unpublished) `Booking Service Trigger → No Operation`. */
async function createTriggerWorkflow(name: string): Promise<TriggerWorkflow> {
	const workflow = triggerWorkflow(name, credential, { typeVersion: 1.1, parameters: { events: EVENTS, options: {} } });
	const webhookId = webhookIdOf(workflow);
	const { id } = await client.createWorkflow(workflow);
	workflowIds.push(id);
	return { id, productionUrl: `${client.webhookUrl}webhook/${webhookId}/webhook` };
}

async function publish(id: string): Promise<void> {
	published.add(id);
	await client.activate(id);
}

async function unpublish(id: string): Promise<void> {
	await client.deactivate(id);
	published.delete(id);
}

/** Publishes a new trigger workflow and checks that it made exactly one subscription, for its Production URL. */
async function activeTriggerWorkflow(name: string): Promise<TriggerWorkflow & { subscriptionId: string }> {
	const workflow = await createTriggerWorkflow(name);
	await publish(workflow.id);
	const subscriptions = simulator.control.webhooks();
	expect(subscriptions.map(({ url, events, status }) => ({ url, events: [...events].sort(), status }))).toEqual([
		{ url: workflow.productionUrl, events: EVENTS, status: 'active' },
	]);
	return { ...workflow, subscriptionId: subscriptions[0].id };
}

/** Waits until the simulator has sent every delivery due, and checks that n8n accepted each one. */
async function drainDeliveriesTo(url: string): Promise<void> {
	const log = await simulator.control.drainDeliveries();
	const toUrl = log.filter((entry) => entry.url === url);
	expect(toUrl.filter((entry) => entry.outcome !== 'delivered' || entry.status !== 200)).toEqual([]);
}

/**
 * The workflow's executions once `expected` of them have finished (a bounded poll), asserting that there are exactly
 * that many and that each succeeded.
 */
async function executionsOf(workflowId: string, expected: number): Promise<Execution[]> {
	if (expected > 0) await client.waitForExecutions(workflowId, expected, EXECUTIONS_LIMIT_MS);
	const executions = await client.listExecutions(workflowId);
	expect(executions.map((execution) => execution.status)).toEqual(Array(expected).fill('success'));
	return executions;
}

/** The item the trigger emitted in an execution. */
function triggerItem(execution: Execution): Record<string, any> {
	const items = execution.data?.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? [];
	expect(items).toHaveLength(1);
	return items[0].json;
}

const DAY_MS = 86_400_000;

/** Free intro-call starts (UTC) from tomorrow on, that no booking of this file holds yet. */
async function freeStarts(): Promise<string[]> {
	const eventTypeId = simulator.control.eventType('intro-call').id;
	const day = (offset: number) => new Date(Date.now() + offset * DAY_MS).toISOString().slice(0, 10);
	const { slots } = await service<{ slots: string[] }>(
		simulator,
		'GET',
		`/event-types/${eventTypeId}/slots?from=${day(1)}&to=${day(20)}&timezone=UTC`,
	);
	return slots;
}

let bookingCount = 0;
/** Books an intro call through the API (booking.created goes out). */
async function book(start: string): Promise<Booking> {
	bookingCount += 1;
	return await service<Booking>(simulator, 'POST', '/bookings', {
		eventTypeId: simulator.control.eventType('intro-call').id,
		start,
		booker: { name: `Guest ${bookingCount}`, email: `guest${bookingCount}.${Date.now()}@example.com`, timezone: 'UTC' },
	});
}

/** Runs `cause` and returns the events the simulator emitted meanwhile. */
async function eventsDuring(cause: () => Promise<unknown>): Promise<WebhookEvent[]> {
	const before = simulator.control.events().length;
	await cause();
	return simulator.control.events().slice(before);
}

/** Each execution started by exactly one of `events`, each event by exactly one execution, carrying its booking. */
function expectOneExecutionPerEvent(executions: Execution[], events: WebhookEvent[]): void {
	const items = executions.map(triggerItem);
	expect(items.map((item) => item.eventId).sort()).toEqual(events.map((event) => event.id).sort());
	for (const event of events) {
		const item = items.find((candidate) => candidate.eventId === event.id);
		expect(item).toMatchObject({ eventType: event.type, booking: event.data.booking });
		expect(item?.booking.eventType.id).toBe(simulator.control.eventType('intro-call').id);
	}
}

async function post(url: string, headers: string[] | Record<string, string>, body: Buffer | string) {
	const response = await request(url, { method: 'POST', headers, body });
	return { status: response.statusCode, text: await response.body.text() };
}

// --- tests ---

describe('Booking Service Trigger in n8n', () => {
	it('publishing subscribes the Production URL once; unpublishing deletes the subscription', async () => {
		const workflow = await activeTriggerWorkflow('trigger e2e: lifecycle');
		// GET /me: the account the subscription lives in, so a later credential change can be judged.
		expect(simulator.control.requests().map(({ method, route, status }) => ({ method, route, status }))).toEqual([
			{ method: 'GET', route: '/me', status: 200 },
			{ method: 'POST', route: '/webhooks', status: 201 },
		]);

		await unpublish(workflow.id);

		expect(simulator.control.webhooks()).toEqual([]);
		expect(simulator.control.requests().map(({ method, path, status }) => ({ method, path, status }))).toEqual([
			{ method: 'GET', path: '/v1/me', status: 200 },
			{ method: 'POST', path: '/v1/webhooks', status: 201 },
			{ method: 'DELETE', path: `/v1/webhooks/${workflow.subscriptionId}`, status: 204 },
		]);
	});

	it('each signed delivery starts exactly one execution, carrying the booking and the event type', async () => {
		const workflow = await activeTriggerWorkflow('trigger e2e: deliveries');
		const [first, second, later] = await freeStarts();
		let booked: Booking | undefined;
		const events = await eventsDuring(async () => {
			booked = await book(first);
			simulator.control.reschedule(booked.id, { start: later, by: 'booker' });
			simulator.control.noShow(booked.id);
			const other = await book(second);
			simulator.control.cancel(other.id, { by: 'booker', reason: 'Cannot make it' });
		});
		expect(events.map((event) => event.type)).toEqual([
			'booking.created',
			'booking.rescheduled',
			'booking.no_show',
			'booking.created',
			'booking.cancelled',
		]);

		await drainDeliveriesTo(workflow.productionUrl);
		const executions = await executionsOf(workflow.id, events.length);

		expectOneExecutionPerEvent(executions, events);
		const rescheduled = executions.map(triggerItem).find((item) => item.eventType === 'booking.rescheduled');
		expect(rescheduled?.booking.id).toBe(booked?.id);
		expect(rescheduled?.booking.start).not.toBe(booked?.start);
		await unpublish(workflow.id);
	});

	it('with duplicated, shuffled deliveries each event still starts exactly one execution', async () => {
		const workflow = await activeTriggerWorkflow('trigger e2e: duplicates');
		simulator.control.setDeliveryMode({ duplicates: 2, shuffle: true });
		const [first, second] = await freeStarts();
		const events = await eventsDuring(async () => {
			const one = await book(first);
			await book(second);
			simulator.control.cancel(one.id, { by: 'host' });
		});
		expect(events).toHaveLength(3);

		await drainDeliveriesTo(workflow.productionUrl);
		const sent = simulator.control.deliveries().filter((entry) => entry.url === workflow.productionUrl);
		expect(sent).toHaveLength(9); // three copies of each event, all answered 200
		expect(sent.map((entry) => entry.eventId)).not.toEqual(
			events.flatMap((event) => [event.id, event.id, event.id]), // not in emission order
		);
		const executions = await executionsOf(workflow.id, 3);

		expectOneExecutionPerEvent(executions, events);
		await unpublish(workflow.id);
	});

	it('a forged delivery gets 401 and a replayed one is acknowledged: neither starts an execution', async () => {
		const workflow = await activeTriggerWorkflow('trigger e2e: forged and replayed');
		const [first] = await freeStarts();
		const [created] = await eventsDuring(() => book(first));
		await drainDeliveriesTo(workflow.productionUrl);
		await executionsOf(workflow.id, 1);
		const [real] = captured;
		expect(captured).toHaveLength(1);
		expect(JSON.parse(real.body.toString('utf8')).id).toBe(created.id);

		// Forged: a well-formed event n8n never saw, signed with a secret that is not the subscription's.
		const forgedBody = JSON.stringify({ ...created, id: `evt_${randomBytes(12).toString('hex')}` });
		const t = Math.floor(Date.now() / 1000);
		const wrongSecret = `whsec_${randomBytes(24).toString('hex')}`;
		const forged = await post(
			workflow.productionUrl,
			{
				'content-type': 'application/json',
				'service-signature': `t=${t},v1=${createHmac('sha256', wrongSecret).update(`${t}.${forgedBody}`).digest('hex')}`,
			},
			forgedBody,
		);
		expect(forged.status).toBe(401);

		// Tampered: the real delivery's headers (a valid signature) over a changed body.
		const tampered = await post(
			workflow.productionUrl,
			real.headers,
			real.body.toString('utf8').replace('"Guest', '"Mallory'),
		);
		expect(tampered.status).toBe(401);

		// Replayed: the real delivery again, exact bytes and headers. Validly signed, so acknowledged (no retries).
		const replayed = await post(workflow.productionUrl, real.headers, real.body);
		expect(replayed.status).toBe(200);

		// A last real event: once its execution has finished, the three requests above have had every chance to
		// start one. Exactly two executions: the first event's and this one's.
		const [cancelled] = await eventsDuring(() =>
			Promise.resolve(simulator.control.cancel(created.data.booking.id, { by: 'booker' })),
		);
		await drainDeliveriesTo(workflow.productionUrl);
		const executions = await executionsOf(workflow.id, 2);
		expectOneExecutionPerEvent(executions, [created, cancelled]);
		await unpublish(workflow.id);
	});

	it('50 publish/unpublish cycles leave no subscription and no execution behind', async () => {
		const workflow = await createTriggerWorkflow('trigger e2e: cycles');
		const CYCLES = 50;
		for (let cycle = 0; cycle < CYCLES; cycle += 1) {
			await publish(workflow.id);
			expect(simulator.control.webhooks().map((subscription) => subscription.url)).toEqual([workflow.productionUrl]);
			await unpublish(workflow.id);
			expect(simulator.control.webhooks()).toEqual([]);
		}

		const calls = simulator.control.requests();
		expect(
			calls.filter((call) => call.method === 'POST' && call.route === '/webhooks' && call.status === 201),
		).toHaveLength(CYCLES);
		expect(
			calls.filter((call) => call.method === 'DELETE' && call.route === '/webhooks/{id}' && call.status === 204),
		).toHaveLength(CYCLES);
		expect(calls.filter((call) => call.route === '/me' && call.status === 200)).toHaveLength(CYCLES);
		expect(calls).toHaveLength(3 * CYCLES);
		expect(simulator.control.webhooks()).toEqual([]);
		await executionsOf(workflow.id, 0);
	});
});
