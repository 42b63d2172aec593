/**
 * Virtual time for the model-based tests: one true time T that only the model moves, the service's clock at T plus
 * its own skew (the simulator's clock, kept frozen), and n8n's clock (`Date.now` in the process, which the nodes read)
 * at T plus another skew. A wait inside the node (the transport's wait after a 429) moves T instead of sleeping, so
 * a Retry-After of a minute costs nothing, and both clocks stay where the model put them between its steps.
 *
 * Use: `vi.mock('n8n-workflow', …)` in the test file replaces `sleep` by `virtualTime.sleep` (see the polling model).
 */
import type { Simulator } from '../simulator/index.ts';

export class VirtualTime {
	/** True time, epoch ms. */
	#t = 0;
	serviceSkewMs = 0;
	n8nSkewMs = 0;
	#sim: Simulator | undefined;
	#restore: (() => void) | undefined;
	/** Total virtual milliseconds slept inside the node (a 429's Retry-After, a back-off). */
	slept = 0;

	/** Starts virtual time at `startMs` against `sim`; `Date.now` answers n8n's clock until `stop()`. */
	start(sim: Simulator, startMs: number): void {
		this.#sim = sim;
		this.#t = startMs;
		this.serviceSkewMs = 0;
		this.n8nSkewMs = 0;
		this.slept = 0;
		if (this.#restore === undefined) {
			const realNow = Date.now;
			Date.now = () => (this.#sim === undefined ? realNow() : this.n8nNow);
			this.#restore = () => {
				Date.now = realNow;
			};
		}
		this.#syncService();
	}

	stop(): void {
		this.#restore?.();
		this.#restore = undefined;
		this.#sim = undefined;
	}

	get t(): number {
		return this.#t;
	}

	get serviceNow(): number {
		return this.#t + this.serviceSkewMs;
	}

	get n8nNow(): number {
		return this.#t + this.n8nSkewMs;
	}

	advance(ms: number): void {
		this.#t += ms;
		this.#syncService();
	}

	/** Runs `change` with the service's clock `lateMs` behind: a change the service writes late (stamped earlier). */
	late<T>(lateMs: number, change: () => T): T {
		this.#sim?.control.setClock(new Date(this.serviceNow - lateMs).toISOString(), { frozen: true });
		try {
			return change();
		} finally {
			this.#syncService();
		}
	}

	stepService(ms: number): void {
		this.serviceSkewMs += ms;
		this.#syncService();
	}

	/**
	 * What replaces n8n-workflow's `sleep` while a model runs. A wait with no signal (the transport's wait after a
	 * 429: a poll has no cancel signal) passes in virtual time; one with a signal (the transport's per-request timeout,
	 * cancelled when the answer comes) waits in real time, as n8n's sleep does.
	 */
	readonly sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
		if (this.#sim !== undefined && signal === undefined) {
			this.slept += ms;
			this.advance(ms);
			return;
		}
		await new Promise<void>((resolve) => {
			const timer = setTimeout(resolve, ms);
			signal?.addEventListener('abort', () => {
				clearTimeout(timer);
				resolve();
			});
		});
	};

	#syncService(): void {
		this.#sim?.control.setClock(new Date(this.serviceNow).toISOString(), {
			frozen: true,
		});
	}
}

/** The one virtual time of this worker (a test file runs in its own worker). */
export const virtualTime = new VirtualTime();
