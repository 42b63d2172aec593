// The account's limit of 25 subscriptions while old subscriptions drain after a key rotation (accountRoom.ts): on a
// refusal for the limit the trigger keeps its own drain in use when it is for the same URL and events (nothing lost);
// otherwise a draining subscription is deleted early — the trigger's own first, then one another trigger of this
// process drains in the same account — and the POST tried again. A live subscription is never deleted for room.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { api, bookIntroCalls, rotateKey } from './support.ts';
import { drainsInThisProcess } from '../../nodes/BookingServiceTrigger/retirement.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
const harnesses: TriggerHarness[] = [];

// The simulator's reset gives out the same subscription ids again, which a real service never does: a drain this
// process remembers from an earlier test could name a live subscription of the next.
beforeEach(() => drainsInThisProcess.clear());

afterEach(async () => {
	for (const harness of harnesses.splice(0)) await harness.close();
});

async function activeTrigger(apiKey = sim.apiKeys.readWrite): Promise<TriggerHarness> {
	const harness = await startTriggerHarness({ baseUrl: sim.baseUrl, apiKey, parameters: { events: ['*'], options: {} } });
	harnesses.push(harness);
	await harness.activate();
	return harness;
}

/** Subscriptions made in the account by something else (another tool, by hand): live, and not ours. */
async function foreignSubscriptions(count: number, apiKey: string): Promise<string[]> {
	const ids: string[] = [];
	for (let index = 0; index < count; index++) {
		const created = await api<{ id: string }>(
			sim,
			'POST',
			'/webhooks',
			{ url: `http://127.0.0.1:9/elsewhere-${index}`, events: ['*'] },
			apiKey,
		);
		ids.push(created.id);
	}
	return ids;
}

function subscriptionIdOf(trigger: TriggerHarness): string {
	return (trigger.nodeStaticData.subscription as { id: string }).id;
}

describe('the account limit while subscriptions drain', () => {
	it("a trigger without a drain of its own deletes another trigger's drain in the same account, never a live subscription", async () => {
		const rotated = await activeTrigger();
		const [oldOfRotated] = sim.control.webhooks().map((subscription) => subscription.id);
		const newKey = rotateKey(sim, rotated);
		await rotated.activate('init'); // replaced; the old one drains
		const foreign = await foreignSubscriptions(20, newKey);
		const fresh: TriggerHarness[] = [];
		for (let index = 0; index < 3; index++) fresh.push(await activeTrigger(newKey));
		expect(sim.control.webhooks()).toHaveLength(25);

		const late = await activeTrigger(newKey);

		const ids = sim.control.webhooks().map((subscription) => subscription.id);
		expect(ids).toHaveLength(25);
		expect(ids).not.toContain(oldOfRotated); // the drain, deleted early
		for (const id of [...foreign, ...[rotated, ...fresh, late].map(subscriptionIdOf)]) expect(ids).toContain(id);
		expect(late.logs.some((line) => line.message.includes(`another trigger's old subscription ${oldOfRotated}`))).toBe(true);

		for (const id of foreign) await api(sim, 'DELETE', `/webhooks/${id}`, undefined, newKey);
		await bookIntroCalls(sim, 1, newKey);
		await sim.control.drainDeliveries();
		expect([rotated, ...fresh, late].map((trigger) => trigger.executions.length)).toEqual([1, 1, 1, 1, 1]);
	});

	it('a full account: the trigger keeps its own drain in use (checked against the service) if it fits, else deletes it for room', async () => {
		const keeps = await activeTrigger();
		const changes = await activeTrigger();
		const [oldOfKeeps, oldOfChanges] = sim.control.webhooks().map((subscription) => subscription.id);
		const newKey = rotateKey(sim, keeps);
		changes.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		await foreignSubscriptions(23, newKey);
		expect(sim.control.webhooks()).toHaveLength(25);

		expect(await keeps.activate('init')).toEqual({ created: true }); // same URL and events: kept in use
		expect(subscriptionIdOf(keeps)).toBe(oldOfKeeps);
		expect(keeps.nodeStaticData.leftoverSubscriptions).toBeUndefined();
		changes.setParameters({ events: ['booking.cancelled'], options: {} }); // events changed with the rotation
		expect(await changes.activate('init')).toEqual({ created: true });
		const ids = sim.control.webhooks().map((subscription) => subscription.id);
		expect(ids).not.toContain(oldOfChanges); // its own drain could not serve the new selection: deleted for room
		expect(ids).toContain(oldOfKeeps);

		const [bookingId] = await bookIntroCalls(sim, 1, newKey);
		await api(sim, 'POST', `/bookings/${bookingId}/cancel`, {}, newKey);
		await sim.control.drainDeliveries();
		const kinds = (trigger: TriggerHarness) => trigger.executions.map((execution) => execution.items[0].json.eventType);
		expect({ keeps: kinds(keeps), changes: kinds(changes) }).toEqual({
			keeps: ['booking.created', 'booking.cancelled'],
			changes: ['booking.cancelled'],
		});
	});

	it('with only live subscriptions in the account, the activation fails with the limit and deletes nothing', async () => {
		const ours = await activeTrigger();
		const foreign = await foreignSubscriptions(24, sim.apiKeys.readWrite);
		const before = sim.control.webhooks().map((subscription) => subscription.id).sort();

		const late = await startTriggerHarness({
			baseUrl: sim.baseUrl,
			apiKey: sim.apiKeys.readWrite,
			parameters: { events: ['*'], options: {} },
		});
		harnesses.push(late);
		await expect(late.activate()).rejects.toThrow(/maximum of 25 webhook subscriptions/);

		expect(sim.control.webhooks().map((subscription) => subscription.id).sort()).toEqual(before);
		expect(before).toContain(subscriptionIdOf(ours));
		expect(foreign).toHaveLength(24);
	});

	it("a drain at another Base URL (another account) is never deleted for room", async () => {
		const rotated = await activeTrigger();
		rotateKey(sim, rotated);
		await rotated.activate('init');
		const drained = sim.control.webhooks().map((subscription) => subscription.id);
		expect(drained).toHaveLength(2);

		// The same process, another service account (another simulator) that is full of live subscriptions.
		const { startSimulator } = await import('../simulator/index.ts');
		const other = await startSimulator({ allowInsecureWebhookTargets: true, rateLimit: false, seed: 7 });
		try {
			for (let index = 0; index < 25; index++) {
				await fetch(`${other.baseUrl}/webhooks`, {
					method: 'POST',
					headers: { Authorization: `Bearer ${other.apiKeys.readWrite}`, 'Content-Type': 'application/json' },
					body: JSON.stringify({ url: `http://127.0.0.1:9/other-${index}`, events: ['*'] }),
				});
			}
			const elsewhere = await startTriggerHarness({
				baseUrl: other.baseUrl,
				apiKey: other.apiKeys.readWrite,
				parameters: { events: ['*'], options: {} },
			});
			harnesses.push(elsewhere);
			await expect(elsewhere.activate()).rejects.toThrow(/maximum of 25 webhook subscriptions/);
			expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual(drained);
			expect(other.control.webhooks()).toHaveLength(25);
		} finally {
			await other.close();
		}
	});
});
