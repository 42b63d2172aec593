/**
 * One history's world: the simulator at a virtual time, the trigger as n8n runs it (PollHarness, on one scheduler),
 * the reference model, and what the model knows to choose its next step (the bookings it made, the newest change's
 * time). Commands (commands.ts) act on it; `drain` ends a history the way a calm service would.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { PollHarness } from '../../harness/poller.ts';
import type { PollScheduler } from '../../harness/poller.ts';
import type { Booking, Simulator } from '../../simulator/index.ts';
import type { Coverage } from '../coverage.ts';
import { virtualTime } from '../virtual-time.ts';
import { PollingReference } from './reference.ts';

export const MINUTE = 60_000;
/**
 * Documented limits: a change stamped more than two minutes before the newest one seen, or written more than two
 * minutes after its stamp, may be lost; stay inside.
 */
export const WITHIN_OVERLAP_MS = 110_000;

export interface TrackedBooking {
	id: string;
	slug: 'intro-call' | 'career-coaching';
	status: string;
	start: string;
	originalStart: string;
}

export interface HistorySettings {
	scheduler: PollScheduler;
	/** Requests per window for the trigger's key, or false: no limit. */
	budget: { requests: number; perSeconds: number } | false;
	/** Only bookings of intro-call (Event Types option), or all. */
	filtered: boolean;
}

/** Starts far enough ahead that the clock never reaches them in a history: April 2026, in UTC. */
/**
 * The half hours a booking of `slug` at `start` takes: both event types share one host, so a career-coaching hour
 * also takes the intro-call slots it covers.
 */
export function halfHoursOf(slug: TrackedBooking['slug'], start: string): string[] {
	const startMs = Date.parse(start);
	return slug === 'career-coaching' ? [start, new Date(startMs + 30 * MINUTE).toISOString()] : [start];
}

export function startsOf(slug: TrackedBooking['slug']): string[] {
	const starts: string[] = [];
	for (let day = 1; day <= 30; day++) {
		const date = new Date(Date.UTC(2026, 3, day));
		const weekday = date.getUTCDay();
		// intro-call: Mon–Fri 09–17 Tokyo (00–08 UTC), 30 min; career-coaching: Mon–Fri 08–12 Tokyo (23–03 UTC), 60 min.
		if (slug === 'intro-call' && weekday >= 1 && weekday <= 5) {
			for (let half = 0; half < 16; half++) starts.push(new Date(date.getTime() + half * 30 * MINUTE).toISOString());
		}
		if (slug === 'career-coaching' && weekday >= 1 && weekday <= 5) {
			for (let hour = 0; hour < 3; hour++) starts.push(new Date(date.getTime() + hour * 60 * MINUTE).toISOString());
		}
	}
	return starts;
}

export class PollingWorld {
	readonly reference = new PollingReference();
	readonly emitted: INodeExecutionData[] = [];
	readonly bookings: TrackedBooking[] = [];
	readonly used = new Set<string>();
	harness: PollHarness;
	/** The newest updatedAt the service has stamped (ms), and the activation's: late writes stay after both bounds. */
	newestStampMs = 0;
	activationStampMs = 0;
	/** An n8n clock step since the last poll (documented limit: at most a minute forward between two polls). */
	n8nStepped = false;
	pollsSinceFault = 0;
	readonly sim: Simulator;
	readonly settings: HistorySettings;
	readonly coverage: Coverage;
	readonly parameters: IDataObject;

	constructor(sim: Simulator, settings: HistorySettings, coverage: Coverage) {
		this.sim = sim;
		this.settings = settings;
		this.coverage = coverage;
		const introCall = sim.control.eventType('intro-call').id;
		this.parameters = {
			events: ['*'],
			options: settings.filtered
				? {
						eventTypes: {
							eventType: [{ eventType: { __rl: true, mode: 'id', value: introCall } }],
						},
					}
				: {},
		};
		this.harness = this.#harness();
	}

	#harness(savedStaticData?: string, workflowId?: string): PollHarness {
		return new PollHarness({
			baseUrl: this.sim.baseUrl,
			apiKey: this.sim.apiKeys.readOnly,
			parameters: this.parameters,
			scheduler: this.settings.scheduler,
			savedStaticData,
			workflowId,
		});
	}

	/** A change the service made (its result), recorded by the reference when the trigger would report it. */
	changed(booking: Booking): void {
		this.newestStampMs = Math.max(this.newestStampMs, Date.parse(booking.updatedAt));
		if (this.settings.filtered && booking.eventType.slug !== 'intro-call') return;
		this.reference.record(booking);
	}

	/** The activation poll (fault-free), then the reference starts counting changes as after activation. */
	async activate(): Promise<void> {
		const items = await this.harness.poll();
		if (items.length > 0) throw new Error(`the activation poll emitted ${items.length} items`);
		this.reference.activate();
		this.activationStampMs = virtualTime.serviceNow;
	}

	async poll(): Promise<INodeExecutionData[]> {
		this.n8nStepped = false;
		const items = await this.harness.poll();
		this.emitted.push(...items);
		return items;
	}

	/** Deactivate and activate again: a new Workflow from the saved workflow, its static data as saved. */
	async reactivate(): Promise<void> {
		this.harness = this.#harness(this.harness.savedStaticData, this.harness.workflowId);
		const items = await this.harness.poll();
		this.emitted.push(...items);
	}

	/**
	 * The lowest stamp a change may carry and still be promised: after activation, within the overlap of the newest
	 * change, and written less than two minutes after it (docs' limit "Changes written late"; also a service clock
	 * that stepped back: everything it stamps then is written late).
	 */
	get earliestPromisedStampMs(): number {
		return Math.max(
			this.activationStampMs + 1,
			this.newestStampMs - WITHIN_OVERLAP_MS,
			virtualTime.t - WITHIN_OVERLAP_MS,
		);
	}

	/** A calm service: faults and limits gone, time moves on; polls until two in a row (3 min apart) find nothing. */
	async drain(): Promise<void> {
		this.sim.control.clearFaults();
		this.sim.control.setRateLimit(false);
		let quiet = 0;
		for (let round = 0; round < 40 && quiet < 2; round++) {
			virtualTime.advance(3 * MINUTE);
			const items = await this.poll();
			quiet = items.length === 0 ? quiet + 1 : 0;
		}
		if (quiet < 2) throw new Error('the trigger still reported changes after 40 calm polls');
	}
}
