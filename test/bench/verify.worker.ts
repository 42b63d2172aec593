/**
 * Worker of section 3 (see verify.ts): the trigger's webhook() on 5 KB signed deliveries against a bare
 * createHmac + timingSafeEqual over the same bytes, in batches, taking turns.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

import type { Delivery } from './deliveries.ts';
import { DELIVERY_BYTES, deliveryTemplate, makeDeliveries } from './deliveries.ts';
import { activateTrigger, MAX_RUN_RECORDS } from './engine.ts';
import type { WorkerInput } from './processes.ts';
import { progress, readWorkerInput, writeWorkerResult } from './processes.ts';
import { inTurns } from './stats.ts';

export interface VerifyInput extends WorkerInput {
	controlUrl: string;
	booking: Record<string, unknown>;
	/** Deliveries per measured run (per variant). */
	batch: number;
}

export const VERIFY_VARIANTS = ['webhook', 'bareHmac', 'hmacAndParse'] as const;
export type VerifyVariant = (typeof VERIFY_VARIANTS)[number];

export interface VerifyResult {
	/** Microseconds per delivery, one value per measured run. */
	microsPerDelivery: Record<VerifyVariant, number[]>;
	deliveriesPerRun: number;
	bodyBytes: number;
	/** Deliveries webhook() turned into workflow data (must be all of them: each event id is new). */
	executionsStarted: number;
	deliveriesToWebhook: number;
	/** Deliveries before measuring: as many as the memory of what ran holds entries, so it has turned over. */
	warmupDeliveries: number;
	runMemoryBound: number;
}

const input = readWorkerInput<VerifyInput>();
const trigger = await activateTrigger(
	{ events: ['*'], options: {} },
	{ apiKey: input.apiKey, baseUrl: input.baseUrl },
);
const subscriptions = (await (await fetch(`${input.controlUrl}/webhooks`)).json()) as {
	items: Array<{ url: string; secret: string; status: string }>;
};
const subscription = subscriptions.items.find((item) => item.url === trigger.webhookUrl && item.status === 'active');
if (subscription === undefined) throw new Error(`no subscription for ${trigger.webhookUrl} on the simulator`);
const template = deliveryTemplate(input.booking);

let executionsStarted = 0;
let deliveriesToWebhook = 0;

/** Everything webhook() does for a delivery: signature, dedupe, output. Contexts are made beforehand (n8n's work). */
async function throughWebhook(deliveries: Delivery[]): Promise<number> {
	const contexts = deliveries.map((delivery) => trigger.prepareDelivery(delivery.body, delivery.headers));
	const results = [];
	const started = performance.now();
	for (const context of contexts) results.push(await trigger.deliver(context));
	const elapsed = performance.now() - started;
	deliveriesToWebhook += results.length;
	executionsStarted += results.filter((result) => result.workflowData?.[0]?.length === 1).length;
	return elapsed;
}

/** The least a receiver can do: HMAC over "<t>." + the same bytes, compared in constant time with the sent MAC. */
async function bareHmac(deliveries: Delivery[]): Promise<number> {
	const signed = deliveries.map((delivery) => {
		const [timestamp, mac] = delivery.headers['service-signature'].split(',').map((part) => part.slice(part.indexOf('=') + 1));
		return { body: delivery.body, timestamp, mac };
	});
	let matched = 0;
	const started = performance.now();
	for (const { body, timestamp, mac } of signed) {
		const expected = createHmac('sha256', subscription!.secret).update(`${timestamp}.`).update(body).digest();
		if (timingSafeEqual(expected, Buffer.from(mac, 'hex'))) matched++;
	}
	const elapsed = performance.now() - started;
	if (matched !== signed.length) throw new Error(`bare HMAC matched ${matched} of ${signed.length} deliveries`);
	return elapsed;
}

/**
 * The floor for any receiver that verifies and then drops duplicates: the bare HMAC plus reading the event id, which
 * means parsing the body (the id is inside it).
 */
async function hmacAndParse(deliveries: Delivery[]): Promise<number> {
	const signed = deliveries.map((delivery) => {
		const [timestamp, mac] = delivery.headers['service-signature'].split(',').map((part) => part.slice(part.indexOf('=') + 1));
		return { body: delivery.body, timestamp, mac };
	});
	const ids = new Set<string>();
	const started = performance.now();
	for (const { body, timestamp, mac } of signed) {
		const expected = createHmac('sha256', subscription!.secret).update(`${timestamp}.`).update(body).digest();
		if (timingSafeEqual(expected, Buffer.from(mac, 'hex'))) ids.add((JSON.parse(body.toString('utf8')) as { id: string }).id);
	}
	const elapsed = performance.now() - started;
	if (ids.size !== signed.length) throw new Error(`HMAC + parse read ${ids.size} ids from ${signed.length} deliveries`);
	return elapsed;
}

const variants: Record<VerifyVariant, (deliveries: Delivery[]) => Promise<number>> = {
	webhook: throughWebhook,
	bareHmac,
	hmacAndParse,
};

// Each delivery adds at least one entry (its event id), so this many fill the memory past its bound: the runs measure a
// busy trigger whose memory is full and turning over, not an empty one.
const warmupDeliveries = MAX_RUN_RECORDS;
for (let done = 0; done < warmupDeliveries; done += input.batch) {
	const deliveries = makeDeliveries(template, subscription.secret, Math.min(input.batch, warmupDeliveries - done));
	for (const variant of VERIFY_VARIANTS) await variants[variant](deliveries);
}
progress(`verify: warmed up with ${warmupDeliveries} deliveries; ${input.runs} runs of ${input.batch} follow`);

const result: VerifyResult = {
	microsPerDelivery: { webhook: [], bareHmac: [], hmacAndParse: [] },
	deliveriesPerRun: input.batch,
	bodyBytes: DELIVERY_BYTES,
	executionsStarted: 0,
	deliveriesToWebhook: 0,
	warmupDeliveries,
	runMemoryBound: MAX_RUN_RECORDS,
};
await inTurns(VERIFY_VARIANTS, { rounds: input.runs, deadline: Date.now() + input.timeLimitMs }, () => {
	// New event ids every round (webhook() drops ids it has seen); every variant gets the same bytes.
	const deliveries = makeDeliveries(template, subscription.secret, input.batch);
	return async (variant) => {
		(globalThis as { gc?: () => void }).gc?.();
		const elapsedMs = await variants[variant](deliveries);
		result.microsPerDelivery[variant].push((elapsedMs * 1000) / deliveries.length);
	};
});
result.executionsStarted = executionsStarted;
result.deliveriesToWebhook = deliveriesToWebhook;
await trigger.deactivate();
await writeWorkerResult(result);
