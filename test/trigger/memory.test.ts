// The trigger's in-process memory (memory.ts): what has run, the opened secrets, the budget for unverified work and
// the subscriptions held after a failed activation — each rule, and each bound.
import { inspect } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { storeUndeleted } from '../../nodes/BookingServiceTrigger/records.ts';
import { TokenBucket } from '../../nodes/shared/tokenBucket.ts';
import { CachedAnswers as Answers } from '../../nodes/shared/cachedAnswers.ts';
import type { IWebhookFunctions } from 'n8n-workflow';
import {
	ACCOUNT_BUDGET,
	KEPT_LISTED,
	listedBooking,
	listingsKept,
	UNVERIFIED_REQUESTS_PER_MINUTE,
	WorkBudget,
} from '../../nodes/BookingServiceTrigger/budget.ts';
import {
	factOf,
	KEY_CHANGE_TTL_MS,
	leftUndeleted,
	MAX_RUN_RECORDS,
	OPENED_SECRET_TTL_MS,
	RecentActivations,
	RunMemory,
	SecretMemory,
} from '../../nodes/BookingServiceTrigger/memory.ts';

const made = '2026-03-01T09:00:00.000Z';
const moved = '2026-03-02T10:00:00.000Z';
const cancelled = factOf('booking.cancelled', { id: 'b1', updatedAt: made });

/** Whether an event id has run: claimed again, it is a repeat (the claim records it when it is not). */
const hasRun = (memory: RunMemory, scope: string, eventId: string) => memory.claim(scope, eventId, undefined, 'signed') === 'repeat';

describe('RunMemory: has this run?', () => {
	it('an event id runs once per trigger, whatever it reports; another trigger has its own memory', () => {
		const memory = new RunMemory();
		expect(memory.claim('t', 'evt_1', cancelled, 'signed')).toBe('run');
		expect(memory.claim('t', 'evt_1', cancelled, 'signed')).toBe('repeat');
		expect(memory.claim('t', 'evt_1', cancelled, 'checked')).toBe('repeat'); // consulted, never recorded by a checked one
		expect(memory.claim('t', 'evt_2', undefined, 'checked')).toBe('run');
		expect(memory.claim('t', 'evt_2', undefined, 'signed')).toBe('run');
		expect(memory.claim('other', 'evt_1', cancelled, 'signed')).toBe('run');
	});

	it('two signed events may report one fact (two changes stamped alike): both run', () => {
		const memory = new RunMemory();
		expect(memory.claim('t', 'evt_1', cancelled, 'signed')).toBe('run');
		expect(memory.claim('t', 'evt_2', cancelled, 'signed')).toBe('run');
	});

	it('a checked request never runs a fact that ran, signed or checked, and leaves nothing behind (issue 37-3)', () => {
		const memory = new RunMemory();
		memory.claim('t', 'evt_signed', cancelled, 'signed');
		expect(memory.claim('t', 'evt_replay', cancelled, 'checked')).toBe('factRan');
		expect(memory.claim('t', 'evt_replay', cancelled, 'checked')).toBe('factRan');
		expect(memory.size).toBe(2);
		const noShow = factOf('booking.no_show', { id: 'b2' });
		expect(memory.claim('t', 'evt_a', noShow, 'checked')).toBe('run');
		expect(memory.claim('t', 'evt_b', noShow, 'checked')).toBe('factRan');
	});

	it('a signed event whose fact ran from a checked request starts nothing, and its retries are repeats', () => {
		const memory = new RunMemory();
		expect(memory.claim('t', 'evt_forged_first', cancelled, 'checked')).toBe('run');
		expect(memory.claim('t', 'evt_genuine', cancelled, 'signed')).toBe('factRan');
		expect(memory.claim('t', 'evt_genuine', cancelled, 'signed')).toBe('repeat');
		// A later checked replay still finds the fact.
		expect(memory.claim('t', 'evt_again', cancelled, 'checked')).toBe('factRan');
	});

	it('a creation, cancellation and no-show are one fact per booking; a reschedule one per state', () => {
		expect(factOf('booking.created', { id: 'b', updatedAt: made })).toBe(factOf('booking.created', { id: 'b', updatedAt: moved }));
		expect(factOf('booking.no_show', { id: 'b', updatedAt: made })).toBe(factOf('booking.no_show', { id: 'b', updatedAt: moved }));
		expect(factOf('booking.cancelled', { id: 'b' })).not.toBe(factOf('booking.cancelled', { id: 'c' }));
		expect(factOf('booking.rescheduled', { id: 'b', updatedAt: made })).not.toBe(factOf('booking.rescheduled', { id: 'b', updatedAt: moved }));
		expect(factOf('booking.paid', { id: 'b' })).toBeUndefined();
	});

	it(`is bounded in total: at most ${MAX_RUN_RECORDS} entries over all triggers, and always the last half`, () => {
		const memory = new RunMemory();
		memory.claim('t0', 'evt_first', undefined, 'signed');
		let largest = 0;
		for (let index = 0; index < MAX_RUN_RECORDS - 1; index++) {
			memory.claim(`t${index % 300}`, `evt_${index}`, undefined, 'signed');
			largest = Math.max(largest, memory.size);
		}
		expect(largest).toBe(MAX_RUN_RECORDS);
		// One more drops the older generation, and the first with it; the newer half is all kept.
		memory.claim('t1', 'evt_last', undefined, 'signed');
		expect(memory.size).toBe(MAX_RUN_RECORDS / 2 + 1);
		const oldestKept = MAX_RUN_RECORDS / 2 - 1;
		expect(hasRun(memory, `t${oldestKept % 300}`, `evt_${oldestKept}`)).toBe(true);
		expect(hasRun(memory, 't0', 'evt_first')).toBe(false);
	});

	it('an entry is a fixed-size digest, whatever the sender put in the event id or the booking', () => {
		const memory = new RunMemory(4);
		const long = 'x'.repeat(100_000);
		memory.claim('t', `evt_${long}`, factOf('booking.rescheduled', { id: long, updatedAt: long }), 'signed');
		expect(memory.claim('t', `evt_${long}`, undefined, 'signed')).toBe('repeat');
		expect(inspect(memory, { showHidden: true, depth: 5 }).length).toBeLessThan(2_000);
	});

	it('R19-12: holds the bound in memory, measured after a full collection: the usual traffic of 500 triggers', () => {
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as () => void;
		const hex = (value: number) => value.toString(16).padStart(24, '0');
		gc();
		const before = process.memoryUsage().heapUsed;
		const memory = new RunMemory();
		for (let index = 0; index < MAX_RUN_RECORDS; index++) {
			const scope = JSON.stringify(['an-n8n-instance-id', `workflow${index % 500}`, '0f7c5a52-1d2e-4b8a-9f3c-5e6d7a8b9c0d', 'webhook']);
			const booking = { id: hex(index), updatedAt: new Date(1.7e12 + index * 1_000).toISOString() };
			memory.claim(scope, `evt_${hex(index * 7)}`, factOf('booking.rescheduled', booking), 'signed');
		}
		gc();
		const heldMiB = (process.memoryUsage().heapUsed - before) / 1_048_576;
		console.info(`run memory at its bound: ${memory.size} entries, ${heldMiB.toFixed(1)} MiB of heap`);
		expect(memory.size).toBeGreaterThanOrEqual(MAX_RUN_RECORDS / 2);
		expect(memory.size).toBeLessThanOrEqual(MAX_RUN_RECORDS);
		expect(heldMiB).toBeLessThan(16);
	}, 60_000);
});

const binding = { workflowId: 'wf_1', nodeId: '6f1f0c1e-1111-4c4c-9999-0123456789ab' };
const secret = 'whsec_4f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a';

describe('SecretMemory: what the credential’s key makes of each sealed secret', () => {
	it('gives back a secret for the same workflow, node and sealed value until its time is up', () => {
		const memory = new SecretMemory(10);
		expect(memory.get(binding, 'v1.sealed', 0)).toBeUndefined();
		memory.remember(binding, 'v1.sealed', { secret }, 0);
		expect(memory.get({ ...binding }, 'v1.sealed', OPENED_SECRET_TTL_MS - 1)).toEqual({ secret });
		// Then the credential is read again: a key rotated meanwhile is noticed.
		expect(memory.get(binding, 'v1.sealed', OPENED_SECRET_TTL_MS)).toBeUndefined();
	});

	it('misses for a new sealed value, or another workflow or node holding the same one; keeps the key parts apart', () => {
		const memory = new SecretMemory(10);
		memory.remember(binding, 'v1.sealed', { secret }, 0);
		expect(memory.get(binding, 'v1.other', 0)).toBeUndefined();
		expect(memory.get({ ...binding, workflowId: 'wf_2' }, 'v1.sealed', 0)).toBeUndefined();
		expect(memory.get({ ...binding, nodeId: 'other' }, 'v1.sealed', 0)).toBeUndefined();
		memory.remember({ workflowId: 'wf', nodeId: 'a/b' }, 'v1.x', { secret }, 0);
		expect(memory.get({ workflowId: 'wf/a', nodeId: 'b' }, 'v1.x', 0)).toBeUndefined();
	});

	it('remembers a key that cannot open the secret (rotated, or another account) for a minute, then asks again', () => {
		const memory = new SecretMemory(10);
		memory.remember(binding, 'v1.sealed', { rotated: 'print' }, 1_000);
		expect(memory.get(binding, 'v1.sealed', 1_000 + KEY_CHANGE_TTL_MS - 1)).toEqual({ rotated: 'print' });
		expect(memory.get(binding, 'v1.sealed', 1_000 + KEY_CHANGE_TTL_MS)).toBeUndefined();
		memory.remember(binding, 'v1.sealed', 'switched', 0);
		expect(memory.get(binding, 'v1.sealed', 0)).toBe('switched');
	});

	it('is bounded, forgetting the trigger that received a delivery least recently', () => {
		const memory = new SecretMemory(2);
		const of = (nodeId: string) => ({ ...binding, nodeId });
		memory.remember(of('a'), 'v1.a', { secret: 'secret-a' }, 0);
		memory.remember(of('b'), 'v1.b', { secret: 'secret-b' }, 0);
		expect(memory.get(of('a'), 'v1.a', 0)).toEqual({ secret: 'secret-a' });
		memory.remember(of('c'), 'v1.c', { secret: 'secret-c' }, 0);
		expect(memory.get(of('b'), 'v1.b', 0)).toBeUndefined();
		expect(memory.get(of('a'), 'v1.a', 0)).toEqual({ secret: 'secret-a' });
		for (let index = 0; index < 50_000; index++) memory.remember({ workflowId: `wf_${index}`, nodeId: 'n' }, `v1.${index}`, { rotated: 'print' }, 0);
		expect(memory.size).toBe(2);
	});

	it('does not show its secrets when logged or serialized', () => {
		const memory = new SecretMemory(10);
		memory.remember(binding, 'v1.sealed', { secret }, 0);
		expect(JSON.stringify(memory)).not.toContain(secret);
		expect(String(memory)).not.toContain(secret);
		expect(inspect(memory, { showHidden: true, depth: 10 })).not.toContain(secret);
	});
});

function takenOf(bucket: TokenBucket, attempts: number, nowMs: number): number {
	let taken = 0;
	for (let index = 0; index < attempts; index++) if (bucket.take(nowMs)) taken += 1;
	return taken;
}

describe('WorkBudget: work for requests not yet verified', () => {
	it('a token bucket gives a burst, then the rate, never more than the burst; an earlier time refills nothing', () => {
		const bucket = new TokenBucket({ burst: 5, perSecond: 2 });
		expect(takenOf(bucket, 100, 0)).toBe(5);
		expect(takenOf(bucket, 100, 1_000)).toBe(2);
		expect(takenOf(bucket, 100, 3_600_000)).toBe(5);
		expect(takenOf(bucket, 100, 0)).toBe(0);
		// A caller late with its time (it awaited GET /me meanwhile) must not refill the same seconds twice (RT5-B3).
		expect(takenOf(bucket, 100, 3_600_000 + 1_000)).toBe(2);
		expect(takenOf(bucket, 100, 3_600_000 + 500)).toBe(0);
	});

	it("a flood at one trigger empties only its share; look-ups take half the account's bucket, listings the rest", () => {
		const budget = new WorkBudget({ burst: 4, perSecond: 1 });
		let flooded = 0;
		for (let index = 0; index < 100; index++) if (budget.take('a', 0, 'acc')) flooded += 1;
		expect(flooded).toBe(4);
		let spread = 0;
		for (let index = 0; index < 1_000; index++) if (budget.take(`t${index}`, 0, 'acc')) spread += 1;
		expect(flooded + spread).toBe(ACCOUNT_BUDGET.burst / 2);
		expect(budget.take('b', 0, 'other account')).toBe(true); // another account's bucket is its own
		expect(budget.take('b', 0)).toBe(true); // a credential read: the share alone
		expect(takenOf(budget.account('acc'), 100, 0)).toBe(ACCOUNT_BUDGET.burst / 2); // listings: to the last token
		expect(takenOf(budget.account('acc'), 100, 60_000)).toBe(UNVERIFIED_REQUESTS_PER_MINUTE - ACCOUNT_BUDGET.burst);
	});

	it('tracks the shares of at most 1,000 triggers', () => {
		const budget = new WorkBudget();
		for (let index = 0; index < 5_000; index++) budget.take(`t${index}`, index);
		expect(budget.sharesTracked()).toBe(1_000);
	});
});

describe('CachedAnswers: whose each key is (GET /me), asked again only when stale', () => {
	const read = async (cache: Answers<string>, key: string, ms: number, ask: () => Promise<string>) =>
		await cache.get(key, ms, ask).answer;

	it('asks once per key per ttl whatever arrives, and gives the answer to every request meanwhile', async () => {
		const cache = new Answers<string>(10_000, 16);
		let asked = 0;
		const ask = async () => `b${++asked}`;
		const seen = [];
		for (let ms = 0; ms < 30_000; ms += 10) seen.push(await read(cache, 'key', ms, ask));
		expect(asked).toBe(3);
		expect([seen[0], seen.at(-1)]).toEqual(['b1', 'b3']);
		expect(cache.get('key', 30_000 - 10, ask).askedMs).toBe(20_000);
	});

	it('asks again when the clock went back, and keeps the answers of its last keys only', async () => {
		const cache = new Answers<string>(10_000, 16);
		let asked = 0;
		const ask = async () => `b${++asked}`;
		await read(cache, 'key', 50_000, ask);
		await read(cache, 'key', 1_000, ask);
		expect(asked).toBe(2);
		for (let index = 0; index < 100; index++) await read(cache, `key-${index}`, 0, ask);
		expect(cache.size).toBe(16);
	});
});

describe("The accounts' listings (budget.ts): bounded in bookings over all accounts, and in accounts", () => {
	// The read itself is the service's (red-team-6 reads 10,000 bookings through it); here each read gives 600 made-up
	// bookings of its account, so only the bounds are under test.
	const context = {} as IWebhookFunctions;
	const reads = (account: string, from: number, count = 600) => async <T>() =>
		({ read: Array.from({ length: count }, (_, index) => ({ id: `${account}-${from + index}` })), pass: undefined }) as T;
	/** The booking if listed since `afterMs`, a read first if one is due at round `round`. */
	const read = async (account: string, round: number, bookingId = 'none', afterMs = 0) => {
		const query = { account, bookingId, nowMs: 1_000_000 + round * 10_000, afterMs };
		return await listedBooking(context, query, reads(account, round * 600));
	};

	it(`keeps the last ${KEPT_LISTED} bookings listed, over all accounts, each with when its read began`, async () => {
		const start = listingsKept();
		for (let round = 0; round < 5; round++) for (const account of ['a', 'b', 'c', 'd', 'e']) await read(account, round);
		expect(listingsKept()).toEqual({ accounts: start.accounts + 5, bookings: KEPT_LISTED }); // 15,000 read
		// The first 5,000 went (rounds 0 and 1 of a, b and c, most of d's round 1). Asked within 10 s of their last
		// reads, nothing is read again: what is kept, and when its read began.
		expect(await read('a', 4, 'a-1199')).toBeUndefined();
		expect(await read('a', 4, 'a-1200')).toEqual({ id: 'a-1200' });
		expect(await read('a', 4, 'a-1200', 1_020_000)).toEqual({ id: 'a-1200' }); // read at round 2
		expect(await read('a', 4, 'a-1200', 1_020_001)).toBeUndefined(); // not since
		expect(await read('b', 4, 'a-1200')).toBeUndefined(); // kept per account
		expect(listingsKept().bookings).toBe(KEPT_LISTED);
	});

	it('paces the reads of the last 1,000 accounts: a flood at other accounts does not make one read again sooner', async () => {
		let asked = 0;
		const counted = async <T>() => ({ read: [], pass: undefined, asked: ++asked }) as T;
		const ask = async (account: string, nowMs: number) => await listedBooking(context, { account, bookingId: 'x', nowMs, afterMs: 0 }, counted);
		await ask('paced', 5_000_000);
		for (let index = 0; index < 998; index++) await ask(`other-${index}`, 5_000_000);
		await ask('paced', 5_009_000);
		expect(asked).toBe(999); // read once in 10 s
		await ask('paced', 5_010_000);
		expect(asked).toBe(1_000); // and again once 10 s passed
		for (let index = 0; index < 5; index++) await ask(`more-${index}`, 5_010_000);
		expect(listingsKept().accounts).toBe(1_000);
	});
});

describe('RecentActivations: n8n’s clean-up after a failed activation', () => {
	const made = { id: 'a'.repeat(24), workflowId: 'wf', nodeId: 'n1', instanceId: 'i', baseUrl: 'b', accountId: 'x', sealedSecret: 's', webhookUrl: 'u', events: ['*'], createdAt: '2026-03-02T09:00:00.000Z' };

	it('a step that may fail holds the workflow until it succeeds; what it made is remembered per node, for 30 s', () => {
		const recent = new RecentActivations();
		expect(recent.of('wf', 'n1', 0)).toEqual({ failed: false });
		recent.started('wf', 0);
		expect(recent.of('wf', 'n1', 1)).toEqual({ failed: true, made: undefined });
		recent.endedWell('wf', 2, { nodeId: 'n1', subscription: made });
		expect(recent.of('wf', 'n1', 3)).toEqual({ failed: false, made });
		recent.started('wf', 4); // the next node of the same activation, which fails
		expect(recent.of('wf', 'n1', 5)).toEqual({ failed: true, made });
		expect(recent.of('wf', 'n2', 5)).toEqual({ failed: true, made: undefined });
		expect(recent.of('other', 'n1', 5)).toEqual({ failed: false });
		expect(recent.of('wf', 'n1', 30_004)).toEqual({ failed: false });
	});

	it('is bounded: the last 1,000 workflows', () => {
		const recent = new RecentActivations();
		for (let index = 0; index < 5_000; index++) recent.started(`wf${index}`, 0);
		expect(recent.of('wf0', 'n', 1).failed).toBe(false);
		expect(recent.of('wf4999', 'n', 1).failed).toBe(true);
	});
});

describe('subscriptions whose DELETE failed, kept in memory as well (a test listen’s static data is not kept)', () => {
	it('holds the records of the last 1,000 triggers, and forgets a trigger once nothing is left', () => {
		const record = (index: number) => ({ id: index.toString(16).padStart(24, '0'), workflowId: `wf${index}`, nodeId: 'n', instanceId: 'i', baseUrl: 'b', accountId: 'a', sealedSecret: 's' });
		for (let index = 0; index < 1_100; index++) storeUndeleted({}, record(index), [record(index)]);
		expect(leftUndeleted.size).toBe(1_000);
		storeUndeleted({}, record(1_099), []);
		expect(leftUndeleted.size).toBe(999);
	});
});
