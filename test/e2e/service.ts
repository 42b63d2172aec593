// A call to the simulator's API as any client makes it — the service's own app, another integration — not through
// n8n: the e2e tests use it to set up and to read back the state n8n's runs are compared with.
import type { Simulator } from '../simulator/index.ts';

/**
 * Sends `body` (if any) as JSON with the read-write key (or `apiKey`, e.g. one made after a rotation); throws on any
 * non-2xx answer, else returns the JSON.
 */
export async function service<T>(
	simulator: Simulator,
	method: string,
	path: string,
	body?: unknown,
	apiKey = simulator.apiKeys.readWrite,
): Promise<T> {
	const response = await fetch(`${simulator.baseUrl}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${apiKey}`,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
	return (text === '' ? undefined : JSON.parse(text)) as T;
}

/** The intro call's free starts over the next 20 days (UTC days), as the service lists them. */
export async function introCallSlots(simulator: Simulator, apiKey = simulator.apiKeys.readWrite): Promise<string[]> {
	const eventTypeId = simulator.control.eventType('intro-call').id;
	const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
	const { slots } = await service<{ slots: string[] }>(
		simulator,
		'GET',
		`/event-types/${eventTypeId}/slots?from=${day(1)}&to=${day(20)}&timezone=UTC`,
		undefined,
		apiKey,
	);
	return slots;
}
