// Shared set-up of the key-rotation tests (key-rotation.test.ts, checked-deliveries.test.ts): the simulator on a real
// clock under a fake Date that moves well forward for every test (the process budget for unverified work refills only
// when Date moves), triggers made through the engine harness, and the service's own retries played from its secret.
import { afterEach, beforeEach, vi } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { TestCredentialsHelper } from '../harness/engine.ts';
import { api, rotateKey, signFromScratch } from './support.ts';
import { useTriggerHarnesses } from './harnesses.ts';

export function rotationSetup() {
	const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
	const { start, harnesses } = useTriggerHarnesses(sim);
	let nextBase = Date.now() + 60_000;
	let now = 0;
	const setNow = (ms: number): void => {
		now = ms;
		vi.setSystemTime(ms);
	};
	const advance = (ms: number): void => setNow(now + ms);

	beforeEach(() => {
		vi.useFakeTimers({ toFake: ['Date'] });
		setNow(nextBase);
		nextBase += 10 * 24 * 3_600_000;
	});
	afterEach(() => {
		vi.useRealTimers();
	});

	async function activeTrigger(options: { instanceId?: string; events?: string[] } = {}): Promise<TriggerHarness> {
		const harness = await start({
			parameters: { events: options.events ?? ['*'], options: {} },
			...(options.instanceId === undefined ? {} : { instanceId: options.instanceId }),
		});
		await harness.activate();
		return harness;
	}

	/** Books the latest free start of an event type (so the booking stays live for days); returns the booking. */
	async function bookLatest(apiKey: string, slug = 'intro-call'): Promise<{ id: string; status: string }> {
		const eventTypeId = sim.control.eventType(slug).id;
		const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
		const to = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
		const { slots } = await api<{ slots: string[] }>(sim, 'GET', `/event-types/${eventTypeId}/slots?from=${from}&to=${to}`, undefined, apiKey);
		return await api<{ id: string; status: string }>(
			sim,
			'POST',
			'/bookings',
			{ eventTypeId, start: slots.at(-1), booker: { name: 'Guest', email: `guest.${Date.now()}@example.com`, timezone: 'Europe/Berlin' } },
			apiKey,
		);
	}

	/** Key rotated (the old one revoked, no re-activation), a live booking made, then cancelled by the host; all delivered. */
	async function rotatedThenCancelled(options: { instanceId?: string } = {}) {
		const trigger = await activeTrigger(options);
		const newKey = rotateKey(sim, trigger);
		const booking = await bookLatest(newKey);
		await sim.control.drainDeliveries();
		advance(60_000);
		sim.control.cancel(booking.id, { by: 'host', reason: null });
		await sim.control.drainDeliveries();
		return { trigger, newKey, booking };
	}

	/** The old subscription's own secret: what the service signs its retries with (the trigger cannot open it). */
	function serviceSecretOf(subscriptionId: string): string {
		return (sim.control.webhooks().find((subscription) => subscription.id === subscriptionId) as { secret: string }).secret;
	}

	/** The service's retry of a delivery: the same bytes and event id, a fresh `t`, signed with the subscription's secret. */
	async function serviceRetry(trigger: TriggerHarness, eventType: string, subscriptionId: string): Promise<number> {
		const delivery = trigger.received.find((request) => request.headers['service-event-type'] === eventType)!;
		return (
			await trigger.post(delivery.rawBody, {
				'Service-Signature': signFromScratch(serviceSecretOf(subscriptionId), delivery.rawBody),
				'Service-Event-Id': String(delivery.headers['service-event-id']),
				'Service-Event-Type': eventType,
			})
		).status;
	}

	/** The service's retries of a delivery, ten minutes apart (what a lost answer leads to); their statuses. */
	async function serviceRetries(trigger: TriggerHarness, eventType: string, subscriptionId: string, count = 3): Promise<number[]> {
		const statuses: number[] = [];
		for (let attempt = 0; attempt < count; attempt++) {
			advance(10 * 60_000);
			statuses.push(await serviceRetry(trigger, eventType, subscriptionId));
		}
		return statuses;
	}

	return { sim, harnesses, advance, activeTrigger, bookLatest, rotatedThenCancelled, serviceSecretOf, serviceRetries };
}

export function runKinds(trigger: TriggerHarness): unknown[] {
	return trigger.executions.map((execution) => execution.items[0].json.eventType);
}

let forgeries = 0;
/** A delivery body for an event the service never sent, under a new event id each time. */
export function forgedBody(type: string, booking: unknown): string {
	forgeries += 1;
	const id = `evt_r${String(forgeries).padStart(23, '0')}`;
	return JSON.stringify({ id, type, createdAt: new Date().toISOString(), apiVersion: 'v1', data: { booking } });
}

/** n8n fails to read the credential once (the next read after this is armed), then reads it as usual. */
export async function withOneFailedCredentialRead<T>(run: () => Promise<T>): Promise<T> {
	const original = TestCredentialsHelper.prototype.getDecrypted;
	let failed = false;
	TestCredentialsHelper.prototype.getDecrypted = async function (this: TestCredentialsHelper, ...args: Parameters<typeof original>) {
		if (!failed) {
			failed = true;
			throw new Error('Connection terminated unexpectedly');
		}
		return await original.apply(this, args);
	};
	try {
		return await run();
	} finally {
		TestCredentialsHelper.prototype.getDecrypted = original;
	}
}
