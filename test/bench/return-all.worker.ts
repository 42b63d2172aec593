/**
 * Worker of section 1 (see return-all.ts): Booking → Get Many with Return All through n8n's engine, against a
 * plain undici loop over the same pages, and a minimal n8n node paging with n8n's own request helper — all three
 * taking turns in one process.
 */
import { Agent, request } from 'undici';

import { runActionNode, runMinimalPager } from './engine.ts';
import type { BookingServiceCredential } from './engine.ts';
import type { RunMeasurement } from './measure.ts';
import { measureRun } from './measure.ts';
import type { WorkerInput } from './processes.ts';
import { progress, readWorkerInput, writeWorkerResult } from './processes.ts';
import { inTurns } from './stats.ts';

export interface ReturnAllInput extends WorkerInput {
	expectedItems: number;
	warmups: number;
}

export const RETURN_ALL_VARIANTS = ['actionNode', 'minimalNode', 'undici'] as const;
export type ReturnAllVariant = (typeof RETURN_ALL_VARIANTS)[number];

export interface ReturnAllResult {
	runs: Record<ReturnAllVariant, RunMeasurement[]>;
	pagesPerRun: number;
}

const PAGE_SIZE = 100;
/** Far more than 10,000 items need; a loop that gets here is broken, not slow. */
const MAX_PAGES = 1_000;

const input = readWorkerInput<ReturnAllInput>();
const credential: BookingServiceCredential = { apiKey: input.apiKey, baseUrl: input.baseUrl };
// One keep-alive connection pool for the whole run, as any sensible client would hold.
const dispatcher = new Agent({ connections: 4 });
let pagesPerRun = 0;

/** The limit for a cursor API: fetch each page, parse it, keep its items, follow nextCursor. */
async function undiciLoop(): Promise<unknown[]> {
	const items: unknown[] = [];
	let cursor: string | null = null;
	let pages = 0;
	do {
		const url = new URL(`${input.baseUrl}/bookings`);
		url.searchParams.set('sort', '-createdAt');
		url.searchParams.set('limit', String(PAGE_SIZE));
		if (cursor !== null) url.searchParams.set('cursor', cursor);
		const response = await request(url, {
			dispatcher,
			headers: { authorization: `Bearer ${input.apiKey}`, accept: 'application/json' },
		});
		const page = (await response.body.json()) as { items: unknown[]; nextCursor: string | null };
		if (response.statusCode !== 200) throw new Error(`page ${pages} answered ${response.statusCode}`);
		for (const item of page.items) items.push(item);
		cursor = page.nextCursor;
		pages++;
	} while (cursor !== null && pages < MAX_PAGES);
	pagesPerRun = pages;
	return items;
}

const jobs: Record<ReturnAllVariant, () => Promise<unknown[]>> = {
	actionNode: async () => await runActionNode({ resource: 'booking', operation: 'getMany', returnAll: true }, credential),
	minimalNode: async () => await runMinimalPager(credential),
	undici: undiciLoop,
};

const measure = (variant: ReturnAllVariant) =>
	measureRun(jobs[variant], (items) => {
		if (items.length !== input.expectedItems) {
			throw new Error(`${variant} returned ${items.length} items, expected ${input.expectedItems}`);
		}
	});

for (let index = 0; index < input.warmups; index++) {
	for (const variant of RETURN_ALL_VARIANTS) await measure(variant);
}
progress(`return-all: warmed up (${input.warmups} of each); ${input.runs} measured runs of each follow`);

const result: ReturnAllResult = { runs: { actionNode: [], minimalNode: [], undici: [] }, pagesPerRun: 0 };
await inTurns(RETURN_ALL_VARIANTS, { rounds: input.runs, deadline: Date.now() + input.timeLimitMs }, () => async (variant) => {
	result.runs[variant].push(await measure(variant));
});
result.pagesPerRun = pagesPerRun;
await dispatcher.close();
await writeWorkerResult(result);
