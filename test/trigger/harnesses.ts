// Trigger harnesses for a test file of the trigger suite, each closed after its test.
import { afterEach } from 'vitest';
import type { TriggerHarness, TriggerHarnessOptions } from '../harness/trigger.ts';
import { startTriggerHarness } from '../harness/trigger.ts';
import type { Simulator } from '../simulator/index.ts';

/**
 * Trigger harnesses for the calling test file: `start` makes one on `sim` (its read-write key, every event unless the
 * options say otherwise); it and any harness a test adds to `harnesses` are closed after the test.
 */
export function useTriggerHarnesses(sim: Simulator) {
	const harnesses: TriggerHarness[] = [];
	afterEach(async () => {
		for (const harness of harnesses.splice(0)) await harness.close();
	});
	async function start(options: Partial<TriggerHarnessOptions> = {}): Promise<TriggerHarness> {
		const harness = await startTriggerHarness({
			baseUrl: sim.baseUrl,
			apiKey: sim.apiKeys.readWrite,
			parameters: { events: ['*'], options: {} },
			...options,
		});
		harnesses.push(harness);
		return harness;
	}
	return { start, harnesses };
}
