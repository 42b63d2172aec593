/**
 * What n8n does in a polling history, and what goes wrong around it: polls at intervals from a minute to a day (with a
 * fault on any of the poll's listing requests), the service's and n8n's clocks stepping, restarts, deactivate/activate
 * and Fetch Test Event. Each counts its coverage label as it runs.
 */
import { faultsHit, injectFault } from '../faults.ts';
import type { FaultChoice } from '../faults.ts';
import { virtualTime } from '../virtual-time.ts';
import type { Command, Model } from './service-commands.ts';
import type { PollingWorld } from './world.ts';
import { MINUTE } from './world.ts';

export const INTERVALS = [
	{ label: 'interval: 1 min', ms: MINUTE },
	{ label: 'interval: 5 min', ms: 5 * MINUTE },
	{ label: 'interval: 1 h', ms: 60 * MINUTE },
	{ label: 'interval: 1 day', ms: 24 * 60 * MINUTE },
];

/** n8n polls after `interval`; with `fault`, the service fails the poll's n-th listing request that way. */
export class Poll implements Command {
	readonly interval: number;
	readonly fault: FaultChoice | undefined;
	constructor(interval: number, fault: FaultChoice | undefined) {
		this.interval = interval;
		this.fault = fault;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		const { label, ms } = INTERVALS[this.interval];
		virtualTime.advance(ms);
		world.coverage.count(label);
		if (this.fault !== undefined) {
			for (const faultLabel of injectFault(world.sim, { method: 'GET', path: '/bookings' }, this.fault))
				world.coverage.count(faultLabel);
		}
		const pending = world.sim.control.faults();
		try {
			const items = await world.poll();
			world.coverage.count(items.length > 0 ? 'poll: emitted' : 'poll: quiet');
		} catch (error) {
			// A poll may fail only for what the service did to it (a fault, the rate budget), never by itself.
			if (pending.length === 0 && world.settings.budget === false) throw error;
			world.coverage.count('poll: failed');
		} finally {
			for (const hit of faultsHit(world.sim, pending)) world.coverage.count(hit);
			// A fault this poll did not reach (fewer requests than its place) ends with it.
			world.sim.control.clearFaults();
		}
	}
	toString = () => `Poll(${INTERVALS[this.interval].label}${this.fault ? `, ${JSON.stringify(this.fault)}` : ''})`;
}

export class ServiceClockStep implements Command {
	readonly stepMs: number;
	/** False: exactly `stepMs`, past what is promised (a regression test replaying a history outside the model). */
	readonly clamped: boolean;
	constructor(stepMs: number, clamped = true) {
		this.stepMs = stepMs;
		this.clamped = clamped;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		// Back at most as far as the promise reaches: after activation, within two minutes of the newest change.
		const floor = world.earliestPromisedStampMs;
		const step = this.clamped ? Math.max(this.stepMs, floor - virtualTime.serviceNow) : this.stepMs;
		virtualTime.stepService(step);
		world.coverage.count(
			`clock: service ${step < 0 ? 'back' : 'forward'} ${Math.abs(step) >= MINUTE ? '≥ 1 min' : '< 1 min'}`,
		);
	}
	toString = () => `ServiceClock(${this.stepMs}ms)`;
}

export class N8nClockStep implements Command {
	readonly skewMs: number;
	constructor(skewMs: number) {
		this.skewMs = skewMs;
	}
	// Documented limit: n8n's clock stepping forward by more than a minute between two polls may lose a change.
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		if (world.n8nStepped) return;
		const from = virtualTime.n8nSkewMs;
		const to = Math.min(this.skewMs, from + MINUTE);
		virtualTime.n8nSkewMs = to;
		world.n8nStepped = true;
		world.coverage.count(`clock: n8n ${to < from ? 'back' : 'forward'}`);
	}
	toString = () => `N8nClock(skew ${this.skewMs}ms)`;
}

export class Lifecycle implements Command {
	readonly what: 'restart' | 'reactivate' | 'fetch test event';
	constructor(what: 'restart' | 'reactivate' | 'fetch test event') {
		this.what = what;
	}
	check = () => true;
	async run(_m: Model, world: PollingWorld) {
		world.coverage.count(`command: ${this.what}`);
		if (this.what === 'restart') world.harness.restart();
		if (this.what === 'fetch test event') await world.harness.fetchTestEvent().catch(() => []);
		if (this.what === 'reactivate') {
			const risky = world.sim.control.faults().length > 0 || world.settings.budget !== false;
			await world.reactivate().catch((error: unknown) => {
				if (!risky) throw error;
			});
		}
	}
	toString = () => `Lifecycle(${this.what})`;
}
