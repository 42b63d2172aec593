/**
 * The simulated clock. It is real time shifted by an offset, so time keeps flowing between test
 * steps (timestamps differ, rate-limit windows roll over) while tests can still jump to any instant
 * or move forward by days to reach the delivery back-off and webhook-disable rules without waiting.
 */
export class Clock {
	#offsetMs = 0;
	#frozenAtMs: number | undefined;

	/** Simulated now, in epoch milliseconds. */
	now(): number {
		return this.#frozenAtMs ?? Date.now() + this.#offsetMs;
	}

	/**
	 * Jumps to an instant; going back is allowed (tests use it to produce stale webhook signatures, and a service
	 * clock that steps back). `frozen` stops it there until the next move, so that several changes share one
	 * timestamp (the contract does not show the timestamps' precision).
	 */
	moveTo(epochMs: number, frozen = false): void {
		this.#offsetMs = epochMs - Date.now();
		this.#frozenAtMs = frozen ? epochMs : undefined;
	}
}

/** Every timestamp the simulator emits: ISO 8601, UTC, millisecond precision, ending in `Z`. */
export function isoTime(epochMs: number): string {
	return new Date(epochMs).toISOString();
}
