// What the polling trigger's real-n8n tests share: a polling workflow, its executions' events, bookings made through
// the service, and — on n8n's durable scheduler — the cursor row n8n keeps for the node (read from n8n's database).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Execution, N8nClient, N8nConnection } from '../n8n/client.ts';
import { N8N_CACHE_DIR, N8N_SCHEDULER } from '../n8n/install.ts';
import type { Booking, Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE, PACKAGE } from './n8n.ts';
import { introCallSlots, service } from './service.ts';

export const POLLING_NODE = `${PACKAGE}.bookingServicePollingTrigger`;
export const TRIGGER = 'Booking Service Polling Trigger';
export const SECOND = 1_000;
export const MINUTE = 60_000;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Poll Times. n8n refuses a schedule that fires more than once a minute, but not six minute-granular ones: "every
 * 10 seconds" is six custom crons at seconds 0, 10, … 50 (each its own job on the durable scheduler). `at(s)` is once
 * a minute, at second `s` — a first poll whose time the test knows.
 */
export const pollTimes = {
	every10Seconds: { item: [0, 10, 20, 30, 40, 50].map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })) },
	everyMinute: { item: [{ mode: 'everyMinute' }] },
	at: (second: number) => ({ item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }] }),
};

/** The second of the minute `seconds` from now. */
export const secondFromNow = (seconds: number) => Math.floor(Date.now() / 1_000 + seconds) % 60;

export type Events = Array<Array<[string, string]>>;

export async function pollingWorkflow(
	client: N8nClient,
	simulator: Simulator,
	name: string,
	{ times = pollTimes.every10Seconds, events = ['*'] }: { times?: unknown; events?: string[] } = {},
): Promise<string> {
	const credential = await client.createCredential({
		name: `Booking Service (${name})`,
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readOnly, baseUrl: simulator.baseUrl },
	});
	const { id } = await client.createWorkflow({
		name: `polling: ${name}`,
		nodes: [
			{
				name: TRIGGER,
				type: POLLING_NODE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: times, events, options: {} },
				credentials: { [CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
			},
			{ name: 'No Operation', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'No Operation', type: 'main', index: 0 }]] } },
	});
	return id;
}

/** The events ([type, booking id]) of each finished production execution, oldest execution first. */
export async function eventsOf(client: N8nClient, workflowId: string): Promise<Events> {
	const finished: Execution[] = (await client.listExecutions(workflowId)).filter(
		(execution) => execution.stoppedAt && execution.mode !== 'manual',
	);
	return finished
		.sort((a, b) => Number(a.id) - Number(b.id))
		.map((execution) =>
			(execution.data?.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? []).map((item) => [
				String(item.json.eventType),
				String((item.json.booking as Booking).id),
			]),
		);
}

export const countOf = (events: Events) => events.flat().length;

/** Polls n8n until `done` holds for the executions' events, or the deadline passes; returns the last events seen. */
export async function until(
	client: N8nClient,
	workflowId: string,
	done: (events: Events) => boolean,
	timeoutMs: number,
): Promise<Events> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const seen = await eventsOf(client, workflowId);
		if (done(seen) || Date.now() > deadline) return seen;
		await sleep(1_000);
	}
}

export async function book(simulator: Simulator, index: number, slug = 'intro-call'): Promise<Booking> {
	const start = slug === 'intro-call' ? (await introCallSlots(simulator))[index] : await someSlot(simulator, slug, index);
	return await service<Booking>(simulator, 'POST', '/bookings', {
		eventTypeId: simulator.control.eventType(slug).id,
		start,
		booker: { name: `Poller ${index}`, email: `poller.${randomUUID()}@example.com`, timezone: 'UTC' },
	});
}

async function someSlot(simulator: Simulator, slug: string, index: number): Promise<string> {
	const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
	const { slots } = await service<{ slots: string[] }>(
		simulator,
		'GET',
		`/event-types/${simulator.control.eventType(slug).id}/slots?from=${day(1)}&to=${day(20)}&timezone=UTC`,
	);
	return slots[index];
}

/**
 * The node's cursor row on n8n's durable scheduler (`poller_state`, in the SQLite database of n8n's user folder), or
 * undefined if there is none: its size in bytes of JSON, and the position in it. Read through n8n's own sqlite3.
 */
export async function cursorRowOf(
	connection: Pick<N8nConnection, 'userFolder'>,
	workflowId: string,
): Promise<{ bytes: number; cursor: Record<string, unknown> } | undefined> {
	const sqlite3 = createRequire(join(N8N_CACHE_DIR, 'node_modules', 'n8n', 'package.json'))('sqlite3') as {
		Database: new (file: string, mode: number, done: (error: Error | null) => void) => SqliteDatabase;
		OPEN_READONLY: number;
	};
	const file = join(connection.userFolder, '.n8n', 'database.sqlite');
	const database = await new Promise<SqliteDatabase>((resolve, reject) => {
		const opened: SqliteDatabase = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) =>
			error ? reject(error) : resolve(opened),
		);
	});
	try {
		const row = await new Promise<{ cursor: string } | undefined>((resolve, reject) =>
			database.get('SELECT cursor FROM poller_state WHERE workflowId = ?', [workflowId], (error, found) =>
				error ? reject(error) : resolve(found as { cursor: string } | undefined),
			),
		);
		return row === undefined ? undefined : { bytes: row.cursor.length, cursor: JSON.parse(row.cursor) as Record<string, unknown> };
	} finally {
		await new Promise<void>((resolve) => database.close(() => resolve()));
	}
}

interface SqliteDatabase {
	get(sql: string, parameters: unknown[], done: (error: Error | null, row: unknown) => void): void;
	close(done: () => void): void;
}

/** On the durable scheduler, every polling workflow must have its cursor row: proof n8n ran the polls there. */
export async function expectDurableCursor(connection: Pick<N8nConnection, 'userFolder'>, workflowId: string) {
	if (N8N_SCHEDULER !== 'durable') return undefined;
	const row = await cursorRowOf(connection, workflowId);
	if (row === undefined) throw new Error(`workflow ${workflowId} has no poller_state row: not polled by the durable scheduler`);
	return row;
}

/** Lines of n8n's log that match, for what n8n says about polls (backing off, timeouts). */
export function logLines(logFile: string, pattern: RegExp): string[] {
	return readFileSync(logFile, 'utf8')
		.split('\n')
		.filter((line) => pattern.test(line));
}
