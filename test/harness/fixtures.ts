/**
 * Shared set-up for the engine tests: one simulator per test file on 127.0.0.1, with a fixed clock so slots and
 * dates are the same on every run, the credential data for each kind of key, and small look-ups the tests need.
 */
import { createRequire } from 'node:module';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { afterAll, beforeAll, beforeEach } from 'vitest';

import { startSimulator } from '../simulator/index.ts';
import type { Simulator, SimulatorOptions } from '../simulator/index.ts';

/** A Monday, 00:00 UTC. */
export const SIMULATED_NOW = '2026-03-02T00:00:00Z';

// The Luxon that n8n-workflow's expressions use: `$now` (which the action node also takes as its clock) reads it.
const requireFromWorkflow = createRequire(createRequire(import.meta.url).resolve('n8n-workflow'));
const { Settings: luxonSettings } = requireFromWorkflow('luxon') as { Settings: { now: () => number } };

/** n8n's clock (`$now`) follows `clock` until the returned function puts it back on the real one. */
export function setN8nClock(clock: () => number): () => void {
	luxonSettings.now = clock;
	return () => {
		luxonSettings.now = () => Date.now();
	};
}

export async function startTestSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	return await startSimulator({ now: SIMULATED_NOW, rateLimit: false, ...options });
}

export interface TestSimulatorHooks {
	/** What every test starts from: a fresh simulation (default), an empty request log, or what the last one left. */
	beforeEachTest?: 'reset' | 'clearRequests' | 'nothing';
	/** SIMULATED_NOW (default), or the host's clock (the trigger tests, whose deliveries carry real times). */
	clock?: 'fixed' | 'real';
}

/**
 * One simulator for the calling test file: started in beforeAll, closed in afterAll, and reset (or its request log
 * cleared) before each test. Returns a handle usable wherever a Simulator is, inside tests and hooks — not at module
 * level, since the simulator only exists once the file's beforeAll has run.
 */
export function useTestSimulator(
	options: SimulatorOptions = {},
	{ beforeEachTest = 'reset', clock = 'fixed' }: TestSimulatorHooks = {},
): Simulator {
	let started: Simulator | undefined;
	const current = (): Simulator => {
		if (started === undefined)
			throw new Error('the test simulator is not running (use it inside tests and hooks)');
		return started;
	};
	let restoreClock = () => {};
	beforeAll(async () => {
		started =
			clock === 'fixed'
				? await startTestSimulator(options)
				: await startSimulator({ rateLimit: false, ...options });
		// With the simulated clock, n8n's clock is the service's, as it is (within seconds) for a real user.
		if (clock === 'fixed') restoreClock = setN8nClock(() => Date.parse(current().control.now().now));
	});
	afterAll(async () => {
		restoreClock();
		await started?.close();
		started = undefined;
	});
	if (beforeEachTest === 'reset') beforeEach(() => current().control.reset());
	if (beforeEachTest === 'clearRequests') beforeEach(() => current().control.clearRequests());
	return {
		get baseUrl() {
			return current().baseUrl;
		},
		get controlUrl() {
			return current().controlUrl;
		},
		get apiKeys() {
			return current().apiKeys;
		},
		get control() {
			return current().control;
		},
		close: async () => await current().close(),
	};
}

export function credentialsFor(
	sim: Simulator,
	key: 'readWrite' | 'readOnly' | string = 'readWrite',
	baseUrl: string = sim.baseUrl,
): Record<string, ICredentialDataDecryptedObject> {
	const apiKey = key === 'readWrite' || key === 'readOnly' ? sim.apiKeys[key] : key;
	return { bookingServiceApi: { apiKey, baseUrl } };
}

/** The /v1 requests the simulator received since the last clear, optionally only those of one route pattern. */
export function requestsTo(sim: Simulator, route?: string) {
	return sim.control.requests().filter((entry) => route === undefined || entry.route === route);
}

export function eventTypeId(sim: Simulator, slug: string): string {
	return sim.control.eventType(slug).id;
}

/** The first free start times of an event type, asked straight from the simulator (not through the node). */
/**
 * Booking → Create's parameters: Jane Doe (jane@example.com, in Europe/Berlin) books the event type with id
 * `eventType` (an id or an expression) at `start`; `overrides` replace any of them.
 */
export function createBookingParameters(
	eventType: string,
	start: string,
	overrides: Record<string, unknown> = {},
): Record<string, unknown> {
	return {
		resource: 'booking',
		operation: 'create',
		eventType: { __rl: true, mode: 'id', value: eventType },
		start,
		bookerName: 'Jane Doe',
		bookerEmail: 'jane@example.com',
		bookerTimeZone: 'Europe/Berlin',
		...overrides,
	};
}

/**
 * An instant as `YYYY-MM-DD HH:mm` in a zone, read from Intl directly rather than the nodes' own time code: the form
 * the booking list shows a start in.
 */
export function minuteInZone(instant: string, timeZone: string): string {
	return new Intl.DateTimeFormat('sv-SE', {
		timeZone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		hourCycle: 'h23',
	}).format(new Date(instant));
}

export async function freeSlots(
	sim: Simulator,
	slug: string,
	from = '2026-03-03',
	to = '2026-03-20',
): Promise<string[]> {
	const response = await fetch(
		`${sim.baseUrl}/event-types/${eventTypeId(sim, slug)}/slots?from=${from}&to=${to}&timezone=UTC`,
		{ headers: { Authorization: `Bearer ${sim.apiKeys.readWrite}` } },
	);
	const body = (await response.json()) as { slots: string[] };
	if (!response.ok || body.slots.length === 0)
		throw new Error(`no free slots for ${slug}: ${JSON.stringify(body)}`);
	return body.slots;
}

/**
 * Every path in `root` — following non-enumerable properties such as an error's `cause` — whose string value contains
 * `needle`. Used to prove the API key never reaches output or errors.
 */
export function pathsHolding(root: unknown, needle: string): string[] {
	const seen = new Set<unknown>();
	const found: string[] = [];
	const visit = (value: unknown, path: string) => {
		if (typeof value === 'string') {
			if (value.includes(needle)) found.push(path);
			return;
		}
		if (typeof value !== 'object' || value === null || seen.has(value)) return;
		seen.add(value);
		for (const key of Object.getOwnPropertyNames(value)) {
			visit((value as Record<string, unknown>)[key], `${path}.${key}`);
		}
	};
	visit(root, '$');
	return found;
}
