/**
 * What the polling trigger's engine tests share: a trigger on the test simulator, the simulated clock moved on or
 * frozen, a booking made through the API, and the shape of what a poll emitted.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Simulator } from '../simulator/index.ts';
import { eventTypeId, freeSlots } from './fixtures.ts';
import { PollHarness } from './poller.ts';
import type { PollHarnessOptions } from './poller.ts';

export const ALL_EVENTS = { events: ['*'], options: {} };

export interface MadeBooking {
	id: string;
	status: string;
	start: string;
	end: string;
}

export function pollingFixtures(sim: Simulator) {
	return {
		/** A trigger; `savedStaticData` and `workflowId` make it another activation of a saved (or copied) workflow. */
		poller: (
			parameters: IDataObject = ALL_EVENTS,
			savedStaticData?: string,
			options: Pick<PollHarnessOptions, 'scheduler' | 'workflowId' | 'pollBudgetMs'> = {},
		) => new PollHarness({ baseUrl: sim.baseUrl, apiKey: sim.apiKeys.readOnly, parameters, savedStaticData, ...options }),

		/** Moves the simulated clock on, so each change gets its own updatedAt (the service's clock ticks too). */
		later: async (seconds = 60) => {
			await sim.control.advanceClock(seconds);
		},

		/** Stops the simulated clock where it is: every change from now on carries the same updatedAt. */
		freezeClock: (): string => {
			const { now } = sim.control.now();
			sim.control.setClock(now, { frozen: true });
			return now;
		},

		/** A booking of the `index`-th free slot, made through the API with the read-and-write key. */
		book: async (simulator: Simulator = sim, slug = 'intro-call', index = 0): Promise<MadeBooking> => {
			const start = (await freeSlots(simulator, slug))[index];
			const response = await fetch(`${simulator.baseUrl}/bookings`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${simulator.apiKeys.readWrite}`, 'Content-Type': 'application/json' },
				body: JSON.stringify({
					eventTypeId: eventTypeId(simulator, slug),
					start,
					booker: { name: 'Poll Test', email: `poll.${Math.random()}@example.com`, timezone: 'UTC' },
				}),
			});
			return (await response.json()) as MadeBooking;
		},
	};
}

export const bookingId = (item: INodeExecutionData) => (item.json.booking as { id: string }).id;
export const kindsOf = (items: INodeExecutionData[]) => items.map((item) => [item.json.eventType, bookingId(item)]);
export const eventIds = (items: INodeExecutionData[]) => items.map((item) => String(item.json.eventId));
