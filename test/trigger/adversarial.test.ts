// Forged, damaged, replayed and unexpected deliveries sent to an active trigger's Production URL. Every case states
// the HTTP answer it must get and whether it may start an execution; every rejected one must start none.
//
// Signatures come from two independent sources: the simulator's real deliveries (captured as received, bytes and
// header untouched, then altered per case) and a from-scratch HMAC in this file (support.ts), using the secret the
// simulator shows the account owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedRequest, TriggerHarness } from '../harness/trigger.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { bookIntroCalls, hmacHex, signFromScratch, syntheticEvent } from './support.ts';

/** Registered first, so its afterAll runs last: the trigger is closed before the simulator. */
const sim = useTestSimulator(
	{ allowInsecureWebhookTargets: true },
	{ clock: 'real', beforeEachTest: 'nothing' },
);
let trigger: TriggerHarness;
let secret: string;
/** The first real delivery, exactly as the simulator sent it. */
let real: ReceivedRequest;
let realBody: string;
let realBooking: unknown;

beforeAll(async () => {
	trigger = await startTriggerHarness({
		baseUrl: sim.baseUrl,
		apiKey: sim.apiKeys.readWrite,
		parameters: { events: ['booking.created', 'booking.cancelled'], options: {} },
	});
	await trigger.activate();
	secret = sim.control.webhooks()[0].secret;

	await bookIntroCalls(sim, 1);
	await sim.control.drainDeliveries();
	real = trigger.received[0];
	realBody = real.rawBody.toString('utf8');
	realBooking = (JSON.parse(realBody) as { data: { booking: unknown } }).data.booking;
});

afterAll(async () => {
	await trigger.close();
});

const now = () => Math.floor(Date.now() / 1000);
const realHeader = () => String(real.headers['service-signature']);
const realTimestamp = () => Number(/t=(\d+)/.exec(realHeader())![1]);
const realV1 = () => /v1=([0-9a-f]+)/.exec(realHeader())![1];

interface Delivery {
	body: string | Buffer;
	/** The Service-Signature header; undefined sends none. Several values send the header several times. */
	signature: string | string[] | undefined;
	headers?: Record<string, string>;
}

async function send({ body, signature, headers = {} }: Delivery): Promise<{ status: number; body: string }> {
	const requestHeaders = new Headers({ 'Content-Type': 'application/json', ...headers });
	for (const value of [signature ?? []].flat()) requestHeaders.append('Service-Signature', value);
	const response = await fetch(trigger.productionUrl, { method: 'POST', headers: requestHeaders, body });
	return { status: response.status, body: await response.text() };
}

describe('the real delivery itself', () => {
	it('was accepted once, from the simulator, signed as the contract says', () => {
		expect(trigger.executions).toHaveLength(1);
		expect(trigger.executions[0].items[0].json.eventId).toBe(real.headers['service-event-id']);
		// Checked from scratch: HMAC-SHA256 over "<t>." + the raw bytes with the simulator's secret.
		expect(realV1()).toBe(hmacHex(secret, Buffer.concat([Buffer.from(`${realTimestamp()}.`), real.rawBody])));
	});
});

type Case = [name: string, delivery: () => Delivery, status: number];

const rejected: Case[] = [
	[
		'signed with a wrong secret',
		() => ({ body: realBody, signature: signFromScratch('whsec_not-the-secret', realBody) }),
		401,
	],
	[
		"signed with another subscription's secret",
		() => ({ body: realBody, signature: signFromScratch(`${secret}0`, realBody) }),
		401,
	],
	[
		'the real header on a tampered body',
		() => ({ body: realBody.replace('Guest 0', 'Guest 1'), signature: realHeader() }),
		401,
	],
	[
		'the real header on the body re-serialised with indentation',
		() => ({ body: JSON.stringify(JSON.parse(realBody), null, 2), signature: realHeader() }),
		401,
	],
	[
		'the real header on the body re-serialised with keys reordered',
		() => {
			const { data, ...rest } = JSON.parse(realBody) as Record<string, unknown>;
			return { body: JSON.stringify({ data, ...rest }), signature: realHeader() };
		},
		401,
	],
	[
		'the real header with one more trailing newline on the body',
		() => ({ body: `${realBody}\n`, signature: realHeader() }),
		401,
	],
	[
		'the real signature with another timestamp',
		() => ({ body: realBody, signature: `t=${realTimestamp() + 1},v1=${realV1()}` }),
		401,
	],
	[
		'a correct MAC with a stale timestamp (5 min + 1 s old)',
		() => ({ body: realBody, signature: signFromScratch(secret, realBody, now() - 301) }),
		401,
	],
	[
		'a correct MAC with a timestamp an hour old',
		() => ({ body: realBody, signature: signFromScratch(secret, realBody, now() - 3600) }),
		401,
	],
	[
		// 10 s past the window rather than 1: the clock moves on between signing here and checking in the node, and a
		// future timestamp comes closer meanwhile. The exact edge is pinned with an injected clock in signature.test.ts.
		'a correct MAC with a future timestamp (5 min + 10 s ahead)',
		() => ({ body: realBody, signature: signFromScratch(secret, realBody, now() + 310) }),
		401,
	],
	['no Service-Signature header', () => ({ body: realBody, signature: undefined }), 401],
	['an empty Service-Signature header', () => ({ body: realBody, signature: '' }), 401],
	['a header without a timestamp', () => ({ body: realBody, signature: `v1=${realV1()}` }), 401],
	['a header without v1', () => ({ body: realBody, signature: `t=${realTimestamp()}` }), 401],
	['a header that is not key=value pairs', () => ({ body: realBody, signature: 'garbage' }), 401],
	['a header with an empty v1', () => ({ body: realBody, signature: `t=${realTimestamp()},v1=` }), 401],
	['a header with a non-numeric timestamp', () => ({ body: realBody, signature: `t=yesterday,v1=${realV1()}` }), 401],
	[
		'a header with two timestamps',
		() => ({ body: realBody, signature: `t=${now()},t=${realTimestamp()},v1=${realV1()}` }),
		401,
	],
	[
		'the header sent twice, once forged',
		() => ({ body: realBody, signature: [signFromScratch('whsec_forged', realBody), realHeader()] }),
		401,
	],
	['a non-hex signature', () => ({ body: realBody, signature: `t=${realTimestamp()},v1=${'z'.repeat(64)}` }), 401],
	[
		'a signature one hex digit short',
		() => ({ body: realBody, signature: `t=${realTimestamp()},v1=${realV1().slice(0, -1)}` }),
		401,
	],
	[
		'a signature with extra hex digits',
		() => ({ body: realBody, signature: `t=${realTimestamp()},v1=${realV1()}ab` }),
		401,
	],
	[
		'a base64 signature',
		() => ({ body: realBody, signature: `t=${realTimestamp()},v1=${Buffer.from(realV1(), 'hex').toString('base64')}` }),
		401,
	],
	[
		'a MAC over the body alone, without "<t>."',
		() => ({ body: realBody, signature: `t=${now()},v1=${hmacHex(secret, realBody)}` }),
		401,
	],
	[
		'a MAC over the parsed-and-re-serialised body',
		() => {
			const reserialised = JSON.stringify(JSON.parse(realBody), null, 1);
			return { body: realBody, signature: signFromScratch(secret, reserialised) };
		},
		401,
	],
	['a v0 signature only', () => ({ body: realBody, signature: `t=${realTimestamp()},v0=${realV1()}` }), 401],
	[
		'a forged event with a forged Service-Event-Type header',
		() => {
			const body = syntheticEvent('booking.created', realBooking);
			return {
				body,
				signature: signFromScratch('whsec_attacker', body),
				headers: { 'Service-Event-Type': 'booking.created' },
			};
		},
		401,
	],
];

const acknowledgedWithoutRun: Case[] = [
	['the real delivery replayed byte for byte', () => ({ body: real.rawBody, signature: realHeader() }), 200],
	[
		'the real event id re-signed now (a replay with a fresh timestamp)',
		() => ({ body: realBody, signature: signFromScratch(secret, realBody) }),
		200,
	],
	[
		'the real event id in a different body',
		() => {
			const body = JSON.stringify({ ...JSON.parse(realBody), createdAt: new Date().toISOString() });
			return { body, signature: signFromScratch(secret, body) };
		},
		200,
	],
	[
		'an unknown event type',
		() => {
			const body = syntheticEvent('booking.paid', realBooking);
			return { body, signature: signFromScratch(secret, body) };
		},
		200,
	],
	[
		'a known event type that is not selected',
		() => {
			const body = syntheticEvent('booking.no_show', realBooking);
			return { body, signature: signFromScratch(secret, body), headers: { 'Service-Event-Type': 'booking.created' } };
		},
		200,
	],
	['a signed body that is not JSON', () => ({ body: 'not json', signature: signFromScratch(secret, 'not json') }), 200],
	[
		'a signed event without data.booking',
		() => {
			const body = JSON.stringify({
				id: 'evt_nobooking',
				type: 'booking.created',
				createdAt: new Date().toISOString(),
				data: {},
			});
			return { body, signature: signFromScratch(secret, body) };
		},
		200,
	],
	[
		'a signed event without an id',
		() => {
			const body = JSON.stringify({ type: 'booking.created', data: { booking: realBooking } });
			return { body, signature: signFromScratch(secret, body) };
		},
		200,
	],
];

describe('rejected deliveries: 401 and no execution', () => {
	it.each(rejected)('%s', async (_name, delivery, status) => {
		const executionsBefore = trigger.executions.length;
		const answer = await send(delivery());
		expect(answer.status).toBe(status);
		// Whatever was wrong, the sender reads the same word: no oracle for forgers, nothing about the trigger's state.
		expect(answer.body).toBe('Unauthorized');
		expect(trigger.executions.length).toBe(executionsBefore);
	});
});

describe('acknowledged deliveries: 2xx and no execution', () => {
	it.each(acknowledgedWithoutRun)('%s', async (_name, delivery, status) => {
		const executionsBefore = trigger.executions.length;
		const answer = await send(delivery());
		expect(answer.status).toBe(status);
		expect(trigger.executions.length).toBe(executionsBefore);
	});
});

describe('accepted deliveries: 2xx and exactly one execution', () => {
	it('a new event whose valid v1 stands among bad ones', async () => {
		const body = syntheticEvent('booking.cancelled', realBooking);
		const t = now();
		const good = hmacHex(secret, `${t}.${body}`);
		const signature = `t=${t},v1=${'0'.repeat(64)},v1=nothex,v1=${hmacHex('whsec_old', `${t}.${body}`)},v1=${good}`;
		const executionsBefore = trigger.executions.length;

		expect((await send({ body, signature })).status).toBe(200);
		expect((await send({ body, signature })).status).toBe(200);
		expect(trigger.executions.length).toBe(executionsBefore + 1);
		expect(trigger.executions.at(-1)!.items[0].json).toMatchObject({
			eventType: 'booking.cancelled',
			booking: realBooking,
		});
	});

	it('a new event at the edge of the time window', async () => {
		const body = syntheticEvent('booking.created', realBooking);
		const executionsBefore = trigger.executions.length;
		expect((await send({ body, signature: signFromScratch(secret, body, now() - 290) })).status).toBe(200);
		expect(trigger.executions.length).toBe(executionsBefore + 1);
	});
});

describe('after the whole suite', () => {
	it('covers at least 25 hostile or unexpected deliveries', () => {
		expect(rejected.length + acknowledgedWithoutRun.length).toBeGreaterThanOrEqual(25);
	});

	it('ran only for the real delivery and the two accepted new events', () => {
		expect(trigger.executions).toHaveLength(3);
		expect(new Set(trigger.executions.map((execution) => execution.items[0].json.eventId)).size).toBe(3);
	});

	it('never put the secret into static data, logs or answers', () => {
		const observable = JSON.stringify([trigger.staticData, trigger.logs, trigger.answers]);
		expect(observable).not.toContain(secret);
		expect(observable).not.toContain(secret.slice(-16));
	});

	it('logged a reason for every rejection', () => {
		const refusals = trigger.logs.filter((line) =>
			line.message.startsWith('Booking Service Trigger: refused a delivery'),
		);
		expect(refusals).toHaveLength(rejected.length);
	});
});
