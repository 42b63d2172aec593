// Small steps the trigger tests share (and the queue-mode suite, so nothing here loads n8n): making real booking events
// happen on the simulator through its public API, reading what it was asked, and signing deliveries from scratch the
// way the contract describes (independently of the node's own code). Harnesses per test: harnesses.ts.
import { createHmac } from 'node:crypto';
import { service as api } from '../harness/service.ts';
import type { Simulator } from '../simulator/index.ts';

/** The simulator's API called directly, as the service's own app would (see test/harness/service.ts). */
export { api };

/** The ids of the subscriptions the simulator was asked to delete (DELETE /webhooks/{id}), in order. */
export function subscriptionDeletes(simulator: Simulator): string[] {
	return simulator.control
		.requests()
		.filter((request) => request.method === 'DELETE' && request.route === '/webhooks/{id}')
		.map((request) => request.path.split('/').pop()!);
}

/** Free start times of the free "intro-call" event type over the next two weeks. */
export async function freeIntroCallStarts(
	sim: Simulator,
	apiKey = sim.apiKeys.readWrite,
): Promise<{ eventTypeId: string; starts: string[] }> {
	const eventTypeId = sim.control.eventType('intro-call').id;
	const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
	const to = new Date(Date.now() + 15 * 86_400_000).toISOString().slice(0, 10);
	const { slots } = await api<{ slots: string[] }>(
		sim,
		'GET',
		`/event-types/${eventTypeId}/slots?from=${from}&to=${to}`,
		undefined,
		apiKey,
	);
	return { eventTypeId, starts: slots };
}

/**
 * Books `count` intro calls through POST /bookings (each emits booking.created); returns their ids. Free starts not
 * booked yet, so it can be called again.
 */
export async function bookIntroCalls(sim: Simulator, count: number, apiKey = sim.apiKeys.readWrite): Promise<string[]> {
	const { eventTypeId, starts } = await freeIntroCallStarts(sim, apiKey);
	const ids: string[] = [];
	for (let index = 0; index < count; index += 1) {
		const booking = await api<{ id: string }>(
			sim,
			'POST',
			'/bookings',
			{
				eventTypeId,
				start: starts[index],
				booker: { name: `Guest ${index}`, email: `guest${index}.${Date.now()}@example.com`, timezone: 'Europe/Berlin' },
			},
			apiKey,
		);
		ids.push(booking.id);
	}
	return ids;
}

/** A later free start for rescheduling. */
export async function laterFreeStart(sim: Simulator): Promise<string> {
	const { starts } = await freeIntroCallStarts(sim);
	return starts[starts.length - 1];
}

export function hmacHex(secret: string, payload: string | Buffer): string {
	return createHmac('sha256', secret).update(payload).digest('hex');
}

/** A `Service-Signature` value made from scratch: HMAC-SHA256 over "<t>." + body with the given secret. */
export function signFromScratch(secret: string, body: string | Buffer, t = Math.floor(Date.now() / 1000)): string {
	const payload = Buffer.concat([Buffer.from(`${t}.`), typeof body === 'string' ? Buffer.from(body) : body]);
	return `t=${t},v1=${hmacHex(secret, payload)}`;
}

/** A well-formed delivery body for an event the simulator never sent. */
export function syntheticEvent(
	type: string,
	booking: unknown,
	id = `evt_${Math.random().toString(16).slice(2).padEnd(24, '0')}`,
): string {
	return JSON.stringify({ id, type, createdAt: new Date().toISOString(), apiVersion: 'v1', data: { booking } });
}

/** The user's rotation: a new key of the same account into the credential, then the old key revoked. */
export function rotateKey(sim: Simulator, harness: { setCredential(credential: { apiKey: string; baseUrl: string }): void }): string {
	const { key } = sim.control.createKey('readWrite');
	harness.setCredential({ apiKey: key, baseUrl: sim.baseUrl });
	sim.control.revokeKey(sim.apiKeys.readWrite);
	return key;
}
