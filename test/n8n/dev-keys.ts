// What `npm run dev` does with a line typed in its terminal: Enter books a call as a customer would; a letter changes
// the newest confirmed booking as its host would in the app, so every event a trigger reports can be watched from the
// terminal. Lines are read the same from a terminal or a pipe (an IDE's run panel, `tail -f fifo | npm run dev`).
import { createInterface } from 'node:readline';

import type { Simulator } from '../simulator/index.ts';

/** The lines the start-up banner prints. */
export const SANDBOX_KEY_HELP = [
	'                 Enter      book the next free intro call (booking.created)',
	'                 r, Enter   reschedule the newest confirmed booking to another free time (booking.rescheduled)',
	'                 c, Enter   cancel it (booking.cancelled)',
	'                 n, Enter   mark it a no-show (booking.no_show)',
	'                 d, Enter   mark it done: completed (no webhook event; the Polling Trigger reports it)',
];

export function listenForSandboxKeys(simulator: Simulator, eventTypeId: string, say: (message: string) => void): void {
	const lines = createInterface({ input: process.stdin, terminal: false });
	lines.on('line', (line) => {
		const key = line.trim().toLowerCase();
		void runKey(simulator, eventTypeId, key).then(say, (error: Error) => say(`"${key || 'Enter'}" failed: ${error.message}`));
	});
}

async function runKey(simulator: Simulator, eventTypeId: string, key: string): Promise<string> {
	if (key === '') return await bookTestCall(simulator, eventTypeId);
	const booking = simulator.control
		.bookings()
		.filter((candidate) => candidate.status === 'confirmed')
		.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0];
	if (!['r', 'c', 'n', 'd'].includes(key)) return `"${key}" is not a sandbox key: Enter, r, c, n or d`;
	if (booking === undefined) return 'no confirmed booking to change: press Enter to book one first';
	const what = `booking ${booking.id} (${booking.start}, ${booking.booker.email})`;
	switch (key) {
		case 'r': {
			const start = (await freeStarts(simulator, booking.eventType.id)).find((slot) => slot !== booking.start);
			if (start === undefined) throw new Error('no other free time in the next two weeks');
			simulator.control.reschedule(booking.id, { start, by: 'host' });
			return `rescheduled ${what} to ${start}: booking.rescheduled is on its way`;
		}
		case 'c':
			simulator.control.cancel(booking.id, { by: 'host', reason: 'Cancelled from the sandbox terminal' });
			return `cancelled ${what}: booking.cancelled is on its way`;
		case 'n':
			simulator.control.noShow(booking.id);
			return `marked ${what} a no-show: booking.no_show is on its way`;
		default:
			simulator.control.complete(booking.id);
			return `completed ${what}: no webhook event; a Polling Trigger reports it at its next poll`;
	}
}

async function callApi<T>(simulator: Simulator, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${simulator.baseUrl}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: { authorization: `Bearer ${simulator.apiKeys.readWrite}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(10_000),
	});
	if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
	return (await response.json()) as T;
}

/** The free starts of the coming two weeks, asked of the API as a client would. */
async function freeStarts(simulator: Simulator, eventTypeId: string): Promise<string[]> {
	const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
	const path = `/event-types/${eventTypeId}/slots?from=${day(1)}&to=${day(14)}&timezone=UTC`;
	return (await callApi<{ slots?: string[] }>(simulator, path)).slots ?? [];
}

/** Books the first free slot of the coming two weeks through the API, as a customer would: one booking.created. */
async function bookTestCall(simulator: Simulator, eventTypeId: string): Promise<string> {
	const [start] = await freeStarts(simulator, eventTypeId);
	if (start === undefined) throw new Error('no free slot in the next two weeks');
	const guest = `test.${Date.now()}@example.com`;
	const booking = await callApi<{ id: string }>(simulator, '/bookings', {
		eventTypeId,
		start,
		booker: { name: 'Test Guest', email: guest, timezone: 'UTC' },
	});
	return `booked ${start} for ${guest} (booking ${booking.id}): booking.created is on its way`;
}
