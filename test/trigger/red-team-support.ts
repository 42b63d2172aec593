// Helpers of the red-team file (red-team.test.ts): floods of forged requests, the service's attempts played by hand,
// and a fixed port for an n8n that goes down and comes back at the same address.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, vi } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { signFromScratch } from './support.ts';
import { forgedBody } from './rotation-support.ts';
import type { rotationSetup } from './rotation-support.ts';

export const noSecret = (body: string) => ({ 'Service-Signature': signFromScratch('attacker-has-no-secret', body) });

let forgedIds = 0;
/** `count` forged creations of bookings that do not exist, each costing a look-up while the budget lasts: all refused. */
export async function flood(trigger: TriggerHarness, count: number): Promise<void> {
	for (let index = 0; index < count; index++) {
		const body = forgedBody('booking.created', { id: (++forgedIds).toString(16).padStart(24, 'a') });
		expect((await trigger.post(body, noSecret(body))).status).toBe(401);
	}
}

export async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

export function redTeamSteps({ sim, advance, serviceSecretOf, harnesses }: ReturnType<typeof rotationSetup>) {
	/** Moves n8n's and the service's clock together, letting every retry that falls due be attempted. */
	async function elapse(ms: number): Promise<void> {
		advance(ms);
		await sim.control.drainDeliveries();
	}

	/** The service's attempts of one delivery until one is answered 2xx: the first, then its retries (60 s, 5 min). */
	async function deliverUntilAccepted(trigger: TriggerHarness, body: string, subscriptionId: string): Promise<void> {
		for (const delaySeconds of [0, 60, 300]) {
			advance(delaySeconds * 1000);
			const headers = { 'Service-Signature': signFromScratch(serviceSecretOf(subscriptionId), body) };
			if ((await trigger.post(body, headers)).status < 300) return;
		}
	}

	/** `trigger` (instance 'queue-instance') in another queue-mode process: fresh modules, so an empty memory (R19-9). */
	async function inOtherProcess(trigger: TriggerHarness, oldKey: string, newKey: string): Promise<TriggerHarness> {
		vi.resetModules();
		const { startTriggerHarness } = await import('../harness/trigger.ts');
		const copyOf = { savedStaticData: trigger.savedStaticData };
		const parameters = { events: ['*'], options: {} };
		const copy = await startTriggerHarness({ baseUrl: sim.baseUrl, apiKey: oldKey, parameters, instanceId: 'queue-instance', workflowId: trigger.workflowId, copyOf });
		harnesses.push(copy);
		// Its URL is registered by an activation that sends nothing (the old key opens the secret), then the key rotates.
		copy.editNodeStaticData((nodeData) => {
			(nodeData.subscription as { webhookUrl: string }).webhookUrl = copy.productionUrl;
		});
		expect(await copy.activate('init')).toEqual({ created: false });
		copy.setCredential({ apiKey: newKey, baseUrl: sim.baseUrl });
		return copy;
	}

	const attemptsOf = (eventId: string) => sim.control.deliveries().filter((entry) => entry.eventId === eventId);
	return { elapse, deliverUntilAccepted, inOtherProcess, attemptsOf };
}
