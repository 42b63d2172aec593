/**
 * Shared set-up: one simulator per test file at a fixed simulated time, and small helpers to find
 * bookable times.
 */
import { afterAll, beforeAll } from 'vitest';
import { startSimulator } from '../../simulator/index.ts';
import type { Simulator, SimulatorOptions } from '../../simulator/index.ts';
import { call } from './client.ts';

/** Monday 2030-01-07, 09:00 in Tokyo (the host's time zone). */
export const NOW = '2030-01-07T00:00:00.000Z';

/** Starts a simulator for the file; `sim()` gives it inside tests. */
export function useSimulator(options: SimulatorOptions = {}): () => Simulator {
	let simulator: Simulator | undefined;
	beforeAll(async () => {
		simulator = await startSimulator({ now: NOW, ...options });
	});
	afterAll(async () => {
		await simulator?.close();
	});
	return () => {
		if (simulator === undefined) throw new Error('simulator not started');
		return simulator;
	};
}

export function eventTypeId(sim: Simulator, slug: string): string {
	return sim.control.eventType(slug).id;
}

/** Offered start times of an event type over the next `days` days (host dates). */
export async function freeSlots(sim: Simulator, slug: string, days = 14): Promise<string[]> {
	const from = sim.control.now().now.slice(0, 10);
	const to = new Date(Date.parse(from) + (days - 1) * 86_400_000).toISOString().slice(0, 10);
	const response = await call(
		sim,
		'GET',
		`/event-types/${eventTypeId(sim, slug)}/slots?from=${from}&to=${to}`,
	);
	if (response.status !== 200)
		throw new Error(`slots: ${response.status} ${JSON.stringify(response.body)}`);
	return response.body.slots;
}

export function bookingBody(
	eventTypeIdValue: string,
	start: string,
	overrides: Record<string, unknown> = {},
) {
	return {
		eventTypeId: eventTypeIdValue,
		start,
		booker: { name: 'Ada Lovelace', email: 'ada@example.com', timezone: 'Europe/London' },
		...overrides,
	};
}

/** Books the first free slot of a type and returns the booking. */
export async function bookFirstFreeSlot(
	sim: Simulator,
	slug: string,
	overrides: Record<string, unknown> = {},
) {
	const [start] = await freeSlots(sim, slug);
	const response = await call(sim, 'POST', '/bookings', {
		json: bookingBody(eventTypeId(sim, slug), start, overrides),
	});
	if (response.status !== 201)
		throw new Error(`booking: ${response.status} ${JSON.stringify(response.body)}`);
	return response.body;
}
