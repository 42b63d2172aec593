/**
 * Worker of the polling section (see polling.ts): the size of the polling trigger's stored state — what n8n writes
 * with every execution (its durable scheduler: the cursor row, in one transaction with the execution) — over a day of
 * changes at a busy account, one poll a minute, and before, during and after a drain of 100,000 changes. Its own
 * simulator runs in this process, so n8n's clock (Date.now, which the node reads to let an overlap settle) and the
 * service's move together: a simulated day takes seconds.
 */
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import type { IDataObject } from 'n8n-workflow';

import { runPoll } from './engine.ts';
import { progress, writeWorkerResult } from './processes.ts';

export interface StateSizes {
	day: { changes: number; polls: number; maxBytes: number; endBytes: number; remembered: number; startRecordBytes: number };
	drain: { size: number; polls: number; maxBytesWhileDraining: number; afterDrainBytes: number; settledBytes: number };
}

const NODE = 'node:Booking Service Polling Trigger';
const realNow = Date.now.bind(Date);
let shiftMs = 0;
// n8n's clock and the in-process service's (real time plus an offset) move on together.
Date.now = () => realNow() + shiftMs;
const pass = (seconds: number) => {
	shiftMs += seconds * 1_000;
};

const sim: Simulator = await startSimulator({ now: '2026-03-02T00:00:00Z', rateLimit: false });
const credential = { apiKey: sim.apiKeys.readOnly, baseUrl: sim.baseUrl };
const pollOf = (staticData: IDataObject) => (staticData[NODE] as IDataObject | undefined)?.poll as IDataObject | undefined;
const stateBytes = (staticData: IDataObject) => JSON.stringify(pollOf(staticData) ?? {}).length;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${sim.baseUrl}${path}`, {
		method,
		headers: { authorization: `Bearer ${sim.apiKeys.readWrite}`, ...(body ? { 'content-type': 'application/json' } : {}) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
	return (await response.json()) as T;
}

/** Free starts of each bookable event type over the next month, taken in turn. */
const slugs = ['intro-call', 'project-sync', 'phone-consultation', 'studio-session'];
const free = new Map<string, string[]>();
for (const slug of [...slugs, 'career-coaching']) {
	const id = sim.control.eventType(slug).id;
	const slots: string[] = [];
	for (const [from, to] of [['2026-03-03', '2026-04-02'], ['2026-04-02', '2026-05-02']]) {
		slots.push(...(await api<{ slots: string[] }>('GET', `/event-types/${id}/slots?from=${from}&to=${to}&timezone=UTC`)).slots);
	}
	free.set(slug, slots);
}
let turn = 0;
/** A booking at the next start still free (event types share the host's calendar: a start may be taken since). */
async function book(slug?: string): Promise<string> {
	for (;;) {
		const pick = slug ?? slugs[turn++ % slugs.length];
		const start = free.get(pick)!.shift();
		if (start === undefined) {
			if (slug !== undefined || slugs.every((name) => free.get(name)!.length === 0)) throw new Error(`no free ${pick} slot left`);
			continue;
		}
		const booker = { name: 'Day Guest', email: `guest.${turn}@example.com`, timezone: 'UTC' };
		const response = await fetch(`${sim.baseUrl}/bookings`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sim.apiKeys.readWrite}`, 'content-type': 'application/json' },
			body: JSON.stringify({ eventTypeId: sim.control.eventType(pick).id, start, booker }),
		});
		if (response.status === 409) continue;
		if (!response.ok) throw new Error(`POST /bookings: ${response.status} ${await response.text()}`);
		return ((await response.json()) as { id: string }).id;
	}
}

// A day at a busy account: 200 upcoming bookings and 2,000 past ones (made over the day before) at activation; then,
// every hour, 6 new
// bookings, 4 reschedules, 3 cancellations, a paid booking (paid ten minutes later), 3 edits of upcoming bookings, 60
// completions, 4 no-shows and 20 edits of past bookings — about 100 changes an hour — and one poll a minute.
const upcoming: string[] = [];
for (let index = 0; index < 200; index++) upcoming.push(await book());
const past: string[] = [];
for (let hour = 0; hour < 24; hour++) {
	past.push(...sim.control.generateBookings({ count: hour < 20 ? 84 : 80 }).ids);
	pass(3_600);
}
let staticData: IDataObject = (await runPoll({}, credential)).staticData;
const day: StateSizes['day'] = { changes: 0, polls: 0, maxBytes: 0, endBytes: 0, remembered: 0, startRecordBytes: 0 };
day.startRecordBytes = JSON.stringify(staticData.global ?? {}).length;
let awaiting: string | undefined;
for (let minute = 0; minute < 24 * 60; minute++) {
	pass(60);
	const at = (every: number, offset = 0) => minute % every === offset;
	const one = (list: string[]) => list.splice(Math.floor(list.length / 2), 1)[0];
	if (at(10)) upcoming.push(await book());
	if (at(15)) {
		const moved = upcoming[minute % upcoming.length];
		const slug = sim.control.bookings().find((booking) => booking.id === moved)!.eventType.slug;
		for (let start = free.get(slug)!.shift(); start !== undefined; start = free.get(slug)!.shift()) {
			try {
				sim.control.reschedule(moved, { start, by: 'booker' });
				break;
			} catch {
				// taken since by another event type: the next start
			}
		}
	}
	if (at(20)) sim.control.cancel(one(upcoming), { by: 'host' });
	if (at(20, 10)) sim.control.editNotes(upcoming[minute % upcoming.length], { notes: `Note ${minute}` });
	if (at(60, 7)) awaiting = await book('career-coaching');
	if (at(60, 17) && awaiting) sim.control.payment(awaiting, { outcome: 'succeeded' });
	sim.control.complete(one(past));
	if (at(15, 3)) sim.control.noShow(one(past));
	if (at(3)) sim.control.editNotes(past[(minute * 7) % past.length], { notes: `After the meeting ${minute}` });
	const result = await runPoll(staticData, credential);
	staticData = result.staticData;
	day.changes += result.items.length;
	day.polls++;
	day.maxBytes = Math.max(day.maxBytes, stateBytes(staticData));
}
day.endBytes = stateBytes(staticData);
day.remembered = Object.keys((pollOf(staticData)?.known as IDataObject | undefined) ?? {}).length;
progress(`polling state: a day of ${day.changes} changes, state at most ${day.maxBytes} bytes, ${day.endBytes} at the end`);

// 100,000 changes at 100 a second (n8n was down for 17 minutes), then drained at one poll a minute.
const drain: StateSizes['drain'] = { size: 100_000, polls: 0, maxBytesWhileDraining: 0, afterDrainBytes: 0, settledBytes: 0 };
pass(600);
staticData = (await runPoll(staticData, credential)).staticData;
for (let made = 0; made < drain.size; made += 100) {
	sim.control.generateBookings({ count: 100 });
	pass(1);
}
let reported = 0;
while (reported < drain.size && drain.polls < 100) {
	pass(60);
	const result = await runPoll(staticData, credential);
	staticData = result.staticData;
	reported += result.items.length;
	drain.polls++;
	if (reported < drain.size) drain.maxBytesWhileDraining = Math.max(drain.maxBytesWhileDraining, stateBytes(staticData));
}
if (reported !== drain.size) throw new Error(`the drain reported ${reported} of ${drain.size}`);
drain.afterDrainBytes = stateBytes(staticData);
for (let poll = 0; poll < 4; poll++) {
	pass(60);
	staticData = (await runPoll(staticData, credential)).staticData;
}
drain.settledBytes = stateBytes(staticData);
progress(`polling state: 100,000 drained in ${drain.polls} polls; ${drain.afterDrainBytes} bytes after, ${drain.settledBytes} four minutes later`);

await sim.close();
await writeWorkerResult({ day, drain } satisfies StateSizes);
