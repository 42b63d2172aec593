// A call to the simulator's API as any client makes it — the service's own app, another integration — not through
// n8n or the nodes: tests use it to make things happen on the service and to read back its state.
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
