// Helpers of red team 5's budget files (red-team-budget*.test.ts): several rotated triggers on one new key, floods of
// forged well-formed requests at some of them, the service's attempts of one genuine delivery played by hand, and the
// requests the node sent the simulator in any 60 s.
import { afterEach } from 'vitest';
import { startTriggerHarness } from '../harness/trigger.ts';
import type { TriggerHarness } from '../harness/trigger.ts';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { DEFAULT_RETRY_DELAYS_SECONDS } from '../simulator/policy.ts';
import { signFromScratch } from './support.ts';
import { forgedBody } from './rotation-support.ts';
import type { rotationSetup } from './rotation-support.ts';

/** The service's first attempt and its nine retries (the simulator's schedule), from the first. */
export const SCHEDULE_MS = [0, ...DEFAULT_RETRY_DELAYS_SECONDS].map((seconds) => seconds * 1000);

export const noSecret = (body: string) => ({ 'Service-Signature': signFromScratch('attacker-has-no-secret', body) });

/** The most requests in any 60 s of `times` (epoch ms, any order). */
export function busiestMinute(times: number[]): number {
	const sorted = [...times].sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, last = 0; last < sorted.length; last++) {
		while (sorted[last] - sorted[first] >= 60_000) first += 1;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

let forged = 0;
/** One forged creation (no secret, a booking that does not exist) at `trigger`; its status. */
export async function forgeAt(trigger: TriggerHarness): Promise<number> {
	const body = forgedBody('booking.created', { id: (++forged).toString(16).padStart(24, 'e') });
	return (await trigger.post(body, noSecret(body))).status;
}

/** Listing reads that started (a first page: GET /bookings without a cursor) among requests the simulator saw. */
export const firstPages = (requests: ReturnType<Simulator['control']['requests']>) =>
	requests.filter((request) => request.route === '/bookings' && request.query.cursor === undefined);

/** Other accounts (other simulators: other Base URLs and accounts), each with one active trigger, closed after each test. */
export function otherAccounts() {
	const others: Simulator[] = [];
	const otherTriggers: TriggerHarness[] = [];
	afterEach(async () => {
		for (const trigger of otherTriggers.splice(0)) await trigger.close();
		for (const other of others.splice(0)) await other.close();
	});
	/** Another account with one active trigger, its key then rotated (new key of the same account, old revoked). */
	return async function rotatedTriggerOfAnotherAccount(seed: number): Promise<{ other: Simulator; trigger: TriggerHarness }> {
		const other = await startSimulator({ rateLimit: false, allowInsecureWebhookTargets: true, seed });
		others.push(other);
		const parameters = { events: ['*'], options: {} };
		const trigger = await startTriggerHarness({ baseUrl: other.baseUrl, apiKey: other.apiKeys.readWrite, parameters });
		otherTriggers.push(trigger);
		await trigger.activate();
		trigger.setCredential({ apiKey: other.control.createKey('readWrite').key, baseUrl: other.baseUrl });
		other.control.revokeKey(other.apiKeys.readWrite);
		return { other, trigger };
	};
}

export function budgetSteps({ sim, advance, activeTrigger, serviceSecretOf }: ReturnType<typeof rotationSetup>) {
	/** `count` active triggers, then the key rotated for all (one new key of the same account, the old one revoked). */
	async function rotatedTriggers(count: number): Promise<{ triggers: TriggerHarness[]; newKey: string }> {
		const triggers: TriggerHarness[] = [];
		for (let index = 0; index < count; index++) triggers.push(await activeTrigger());
		const newKey = sim.control.createKey('readWrite').key;
		for (const trigger of triggers) trigger.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		sim.control.revokeKey(sim.apiKeys.readWrite);
		return { triggers, newKey };
	}

	/** Forged creations of bookings that do not exist, round-robin over `targets`, one every `gapMs`, for `durationMs`. */
	async function flood(targets: TriggerHarness[], durationMs: number, gapMs: number): Promise<Set<number>> {
		const statuses = new Set<number>();
		for (let elapsed = 0, index = 0; elapsed < durationMs; elapsed += gapMs, index++) {
			advance(gapMs);
			const body = forgedBody('booking.created', { id: (++forged).toString(16).padStart(24, 'c') });
			statuses.add((await targets[index % targets.length].post(body, noSecret(body))).status);
		}
		return statuses;
	}

	/** One attempt of the service's delivery of `body` to `trigger`'s subscription: signed with its secret, fresh `t`. */
	async function attempt(trigger: TriggerHarness, body: string): Promise<number> {
		const subscriptionId = (trigger.nodeStaticData.subscription as { id: string }).id;
		return (await trigger.post(body, { 'Service-Signature': signFromScratch(serviceSecretOf(subscriptionId), body) })).status;
	}

	/** The delivery body of the one event the simulator made for `bookingId` (the same bytes for every subscription). */
	function eventBody(bookingId: string, type = 'booking.created'): string {
		const event = sim.control.events().find((entry) => entry.data.booking.id === bookingId && entry.type === type);
		return JSON.stringify(event);
	}

	/** What the node sent the simulator after request `afterSeq`. */
	function sentSince(afterSeq: number) {
		return sim.control.requests().filter((request) => request.seq > afterSeq);
	}
	const lastSeq = () => sim.control.requests().at(-1)?.seq ?? 0;

	/**
	 * `count` bookings cancelled by the host while n8n is down after the rotation, at `triggerCount` rotated triggers:
	 * their deliveries fall due together and are retried on the same schedule, oldest first, 50 ms apart; the service
	 * stops retrying one once it is answered 2xx. No forger.
	 */
	async function backlog(count: number, triggerCount = 1) {
		const { triggers } = await rotatedTriggers(triggerCount);
		sim.control.setDeliveryMode({ shuffle: true }); // n8n is down: the attempts are played below
		advance(60_000);
		const { ids } = sim.control.generateBookings({ count }); // silent, made before: only the cancellations are events
		for (const id of ids) {
			advance(100);
			sim.control.cancel(id, { by: 'host', reason: null });
		}
		const events = sim.control.events().filter((event) => event.type === 'booking.cancelled' && ids.includes(event.data.booking.id));
		let pending = events.flatMap((event) => triggers.map((trigger) => ({ trigger, body: JSON.stringify(event) })));
		const firstSeq = lastSeq();
		const refusedPerAttempt: number[] = [];
		for (const delayMs of SCHEDULE_MS) {
			advance(delayMs);
			const still: typeof pending = [];
			for (const delivery of pending) {
				advance(50);
				if ((await attempt(delivery.trigger, delivery.body)) >= 300) still.push(delivery);
			}
			pending = still;
			refusedPerAttempt.push(pending.length);
		}
		const runs = triggers.reduce((sum, trigger) => sum + trigger.executions.length, 0);
		const sent = sentSince(firstSeq);
		const busiest = busiestMinute(sent.map((request) => Date.parse(request.at)));
		return { events: events.length, runs, neverRan: pending.length, refusedPerAttempt, sent: sent.length, busiest };
	}

	return { rotatedTriggers, flood, attempt, eventBody, sentSince, lastSeq, backlog };
}
