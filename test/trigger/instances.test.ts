// The same workflow on two n8n instances (an export imported elsewhere keeps workflow and node ids; the credential is
// shared), through n8n-core's hook and webhook contexts: the second instance never deletes the first one's live
// subscription — not even when both share an instance id (n8n derives it from the encryption key): a subscription for
// another URL than the node's own is only ever forgotten and named in the log. Each harness has its own port, so its
// own webhook URL; its instance id plays n8n's.
import { describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { bookIntroCalls, subscriptionDeletes } from './support.ts';
import { useTriggerHarnesses } from './harnesses.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
const { start: instance } = useTriggerHarnesses(sim);

/** The second instance: the first one's workflow as exported (ids and static data), its own URL and instance id. */
async function importedInto(instanceId: string, original: TriggerHarness): Promise<TriggerHarness> {
	return await instance({
		instanceId,
		workflowId: original.workflowId,
		copyOf: { savedStaticData: original.savedStaticData },
	});
}

describe('the same workflow on two n8n instances', () => {
	it('the second instance never deletes the first one’s live subscription; both receive every event once', async () => {
		const first = await instance({ instanceId: 'instance-a' });
		await first.activate();
		const [original] = sim.control.webhooks();
		const second = await importedInto('instance-b', first);

		expect(await second.activate()).toEqual({ created: true });

		expect(subscriptionDeletes(sim)).toEqual([]);
		expect(sim.control.webhooks().map((subscription) => subscription.url).sort()).toEqual(
			[first.productionUrl, second.productionUrl].sort(),
		);
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toContain(original.id);
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(first.executions).toHaveLength(1);
		expect(second.executions).toHaveLength(1);
		// Deactivating the second deletes only its own.
		await second.deactivate();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([original.id]);
	});

	// R27-3: a second n8n that shares the encryption key (a staging copy, a migrated server, a restored backup) has the
	// same instance id; it imports the workflow with its ids and static data. Deleting "its own" subscription for
	// another URL would kill the first instance's live one.
	it('R27-3: a second n8n sharing the instance id never deletes the first one’s subscription; both receive every event', async () => {
		const first = await instance({ instanceId: 'shared-encryption-key' });
		await first.activate();
		const [original] = sim.control.webhooks();
		const second = await importedInto('shared-encryption-key', first);

		expect(await second.activate()).toEqual({ created: true });
		const secondsOwn = (second.nodeStaticData.subscription as { id: string }).id;
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		await second.deactivate();

		expect(subscriptionDeletes(sim)).toEqual([secondsOwn]);
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([original.id]);
		expect(second.logs.some((line) => line.level === 'warn' && line.message.includes(`${original.id} delivers to ${first.productionUrl}`))).toBe(true);
		// One process plays both instances here, so they share the run memory: the event ran once between them.
		expect(first.executions.length + second.executions.length).toBeGreaterThanOrEqual(1);
		expect(sim.control.deliveries().every((delivery) => delivery.status === 200)).toBe(true);
	});

	it('one instance whose webhook URL changed leaves its old subscription (named in the log) and subscribes the new URL', async () => {
		const before = await instance({ instanceId: 'instance-a' });
		await before.activate();
		const [old] = sim.control.webhooks();
		await before.close();
		// The same instance started again under another WEBHOOK_URL (its own static data, a new port).
		const after = await importedInto('instance-a', before);

		expect(await after.activate('init')).toEqual({ created: true });

		expect(subscriptionDeletes(sim)).toEqual([]);
		expect(after.logs.some((line) => line.level === 'warn' && line.message.includes(old.id))).toBe(true);
		expect(sim.control.webhooks().map((subscription) => subscription.url).sort()).toEqual([before.productionUrl, after.productionUrl].sort());
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(after.executions).toHaveLength(1);
	});
});
