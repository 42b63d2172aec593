// The simulator's API called as any client calls it (test/harness/service.ts), and the intro call's free starts: the
// e2e tests use them to set up and to read back the state n8n's runs are compared with.
import { service } from '../harness/service.ts';
import type { Simulator } from '../simulator/index.ts';

export { service };

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
