/**
 * Fault injection for the model-based tests, generic: a fault of any kind on the n-th matching request (the
 * simulator's `skip`), as an arbitrary and as a coverage label (`fault: 429 on request 3`). The label is also the
 * fault's message, so `faultsHit` can tell which faults a step used up.
 */
import fc from 'fast-check';

import type { Simulator } from '../simulator/index.ts';

/** Labels of the faults pending in `before` (sim.control.faults()) that are no longer pending now: used up. */
export function faultsHit(sim: Simulator, before: ReturnType<Simulator['control']['faults']>): string[] {
	const now = new Set(sim.control.faults().map((fault) => fault.message));
	return before
		.filter((fault) => !now.has(fault.message))
		.map((fault) => `fault hit: ${String(fault.message).split(' #')[0]}`);
}

let injected = 0;

export type FaultChoice =
	| { kind: '429'; retryAfterSeconds: number; times: number; page: number }
	| { kind: '5xx'; status: number; page: number }
	| { kind: 'drop'; page: number };

/** Retry-After values around the transport's limit (60 s: waited; longer: the poll fails at once). */
export const RETRY_AFTER_SECONDS = [0, 1, 5, 30, 60, 61, 3_600];

/** Which matching request of a poll the fault hits (for GET /bookings: 1–2 the lists of bookings in flight, then pages). */
export const PAGE_BUCKETS = ['request 1', 'request 2', 'request 3', 'request 4-10', 'request 11+'];

export const faultArbitrary: fc.Arbitrary<FaultChoice> = fc.oneof(
	fc.record({
		kind: fc.constant('429' as const),
		retryAfterSeconds: fc.constantFrom(...RETRY_AFTER_SECONDS),
		// More than the transport's five attempts in a row: the request fails.
		times: fc.constantFrom(1, 2, 5),
		page: pageArbitrary(),
	}),
	fc.record({
		kind: fc.constant('5xx' as const),
		status: fc.constantFrom(500, 502, 503),
		page: pageArbitrary(),
	}),
	fc.record({ kind: fc.constant('drop' as const), page: pageArbitrary() }),
);

function pageArbitrary(): fc.Arbitrary<number> {
	return fc.oneof(
		{ weight: 6, arbitrary: fc.integer({ min: 0, max: 3 }) },
		{ weight: 1, arbitrary: fc.integer({ min: 4, max: 30 }) },
	);
}

export function pageBucket(page: number): string {
	if (page < 3) return PAGE_BUCKETS[page];
	return page < 10 ? PAGE_BUCKETS[3] : PAGE_BUCKETS[4];
}

/** Every fault label, generated and hit, for the coverage report's "never generated". */
export function expectedFaultLabels(): string[] {
	const labels = ['429', '5xx', 'drop'].flatMap((kind) => PAGE_BUCKETS.map((bucket) => `${kind} on ${bucket}`));
	return [...labels.map((label) => `fault: ${label}`), ...labels.map((label) => `fault hit: ${label}`)];
}

/** Adds the fault on the (page+1)-th request matching `target`; returns its coverage labels. */
export function injectFault(sim: Simulator, target: { method: string; path: string }, fault: FaultChoice): string[] {
	const on = `on ${pageBucket(fault.page)}`;
	// Unique, so that two pending faults with one label are told apart; the label is the part before ' #'.
	const message = `${fault.kind} ${on} #${(injected += 1)}`;
	switch (fault.kind) {
		case '429':
			sim.control.addFault({
				...target,
				message,
				kind: 'rate_limit',
				count: fault.times,
				skip: fault.page,
				retryAfterSeconds: fault.retryAfterSeconds,
			});
			return [`fault: 429 ${on}`, `fault: 429 Retry-After ${fault.retryAfterSeconds} s × ${fault.times}`];
		case '5xx':
			sim.control.addFault({
				...target,
				message,
				kind: 'status',
				status: fault.status,
				count: 1,
				skip: fault.page,
			});
			return [`fault: 5xx ${on}`];
		case 'drop':
			sim.control.addFault({
				...target,
				message,
				kind: 'drop',
				count: 1,
				skip: fault.page,
			});
			return [`fault: drop ${on}`];
	}
}
