/**
 * A service that accepts the connection and never answers (the simulator's latency fault, longer than any limit):
 * each place names the limit that applied, in the same sentence — the credential's Test button (10 s, fetch's own
 * connect limit too), the action node (its Timeout option), and both triggers, which have no Timeout option and so
 * must not advise one.
 */
import type { ICredentialTestFunctions } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { LOOKUP_TIMEOUT_MS } from '../../nodes/BookingServiceTrigger/service.ts';
import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { credentialsFor, useTestSimulator } from '../harness/fixtures.ts';
import { PollHarness } from '../harness/poller.ts';
import { ALL_EVENTS } from '../harness/polling-fixtures.ts';
import { useTriggerHarnesses } from '../trigger/harnesses.ts';

const sim = useTestSimulator({}, { clock: 'real' });
const { start: startTrigger } = useTriggerHarnesses(sim);

/** Every request from now on is received and held far past every limit. */
function neverAnswer(): void {
	sim.control.addFault({ method: '*', path: '*', count: 100, kind: 'latency', latencyMs: 120_000 });
}

async function credentialTest() {
	return await new BookingService().methods.credentialTest.bookingServiceApiTest.call({} as ICredentialTestFunctions, {
		id: 'c',
		name: 'Booking Service',
		type: 'bookingServiceApi',
		data: { apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl },
	});
}

const noAnswer = (request: string, seconds: number) =>
	`The Booking Service at ${sim.baseUrl} did not answer ${request} within ${seconds} s`;

describe('a service that accepts the connection and never answers', () => {
	it("the credential's Test button says 10 s after 10 s, and Account → Get with a 10 s Timeout leads with its sentence", async () => {
		neverAnswer();
		const startedAt = Date.now();
		const [tested, run] = await Promise.all([
			credentialTest(),
			runWorkflow({
				nodes: [bookingServiceNode('Me', { resource: 'account', operation: 'get', options: { timeout: 10_000 } })],
				credentials: credentialsFor(sim),
			}),
		]);
		const waited = Date.now() - startedAt;

		expect(tested).toEqual({
			status: 'Error',
			message: `${noAnswer('GET /me', 10)}. Check the Base URL of the Booking Service API credential, and that this n8n can reach the service (firewall, proxy).`,
		});
		expect(run.error?.message).toBe(`${noAnswer('GET /me', 10)}; try again later, or raise the Timeout option`);
		expect(waited).toBeGreaterThanOrEqual(9_900);
		expect(waited).toBeLessThan(14_000);
	}, 30_000);

	it('the webhook trigger fails its activation naming its own limit, and advises no Timeout option', async () => {
		const trigger = await startTrigger();
		neverAnswer();

		const failure = (await trigger.activate().catch((error: unknown) => error)) as Error;
		expect(failure.message).toBe(
			`Could not read the Booking Service account of the API key: ${noAnswer('GET /me', LOOKUP_TIMEOUT_MS / 1000)}; try again later`,
		);
		expect(JSON.stringify(failure)).not.toMatch(/Timeout option/);
	}, 30_000);

	it("the polling trigger's poll fails naming the limit that applied (its poll budget), and advises no Timeout option", async () => {
		const trigger = new PollHarness({
			baseUrl: sim.baseUrl,
			apiKey: sim.apiKeys.readOnly,
			parameters: ALL_EVENTS,
			pollBudgetMs: 3_000,
		});
		neverAnswer();

		const failure = (await trigger.poll().catch((error: unknown) => error)) as Error & { description?: string };
		expect(failure.message).toBe(`${noAnswer('GET /bookings', 3)}; try again later`);
		expect(`${failure.message} ${failure.description}`).not.toMatch(/Timeout option/);
	}, 30_000);
});
