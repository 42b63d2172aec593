// Who may touch a subscription, and how long it may take: a copy of a workflow never kills the original's
// subscription; a credential switched to another account never sends the old subscription's DELETE to the wrong
// account; a subscription whose DELETE failed stays recorded and is deleted later; a lost create answer leaves a
// recognisable subscription; a slow or rate-limiting service cannot hold activation or deactivation for minutes; a
// flood of unauthenticated requests does not make n8n read the credential each time; the Event Type filter.
import { afterEach, describe, expect, it } from 'vitest';
import type { TriggerHarness, TriggerHarnessOptions } from '../harness/trigger.ts';
import { startTestSimulator, useTestSimulator } from '../harness/fixtures.ts';
import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import { bookIntroCalls, signFromScratch, subscriptionDeletes as deletesOf, syntheticEvent } from './support.ts';
import { useTriggerHarnesses } from './harnesses.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
const PARAMETERS = { events: ['booking.created'], options: {} };
const otherSimulators: Simulator[] = [];
const harnesses = useTriggerHarnesses(sim);

async function trigger(options: Partial<TriggerHarnessOptions> = {}): Promise<TriggerHarness> {
	return await harnesses.start({ parameters: PARAMETERS, ...options });
}

afterEach(async () => {
	for (const other of otherSimulators.splice(0)) await other.close();
});

function warnings(harness: TriggerHarness): string[] {
	return harness.logs.filter((line) => line.level === 'warn').map((line) => line.message);
}

describe('a copy of the workflow (static data carried along)', () => {
	it('forgets the original’s record without deleting it, subscribes for itself, and the original keeps receiving', async () => {
		const original = await trigger();
		await original.activate();
		const [originalSubscription] = sim.control.webhooks();
		const copy = await trigger({
			copyOf: { savedStaticData: original.savedStaticData, webhookId: 'a7f3d8e2-5b14-4c6a-8e9f-0d1c2b3a4f5e' },
		});

		expect(await copy.activate()).toEqual({ created: true });

		expect(deletesOf(sim)).toEqual([]);
		const subscriptions = sim.control.webhooks();
		expect(subscriptions.map((subscription) => subscription.url).sort()).toEqual(
			[original.productionUrl, copy.productionUrl].sort(),
		);
		expect(subscriptions.find((subscription) => subscription.url === original.productionUrl)?.id).toBe(
			originalSubscription.id,
		);
		expect((copy.nodeStaticData.subscription as { workflowId: string }).workflowId).toBe(copy.workflowId);

		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(original.executions).toHaveLength(1);
		expect(copy.executions).toHaveLength(1);

		// Deactivating the copy deletes only the copy's own subscription.
		await copy.deactivate();
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([originalSubscription.id]);
	});

	it('also leaves alone the subscriptions the original could not delete', async () => {
		const original = await trigger();
		await original.activate();
		const [first] = sim.control.webhooks();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 1, kind: 'status', status: 500 });
		await original.deactivate();
		expect(original.nodeStaticData.undeleted).toHaveLength(1);

		const copy = await trigger({ copyOf: { savedStaticData: original.savedStaticData, webhookId: 'b1e2d3c4-0000-4a6a-8e9f-0d1c2b3a4f5e' } });
		await copy.activate();

		expect(deletesOf(sim)).toEqual([first.id]); // only the original's own failed attempt
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toContain(first.id);
	});
});

describe('the credential switched to another account', () => {
	async function otherAccount(): Promise<Simulator> {
		// Another seed: another account, other ids and secrets.
		const other = await startTestSimulator({ allowInsecureWebhookTargets: true, now: undefined, seed: 2 });
		otherSimulators.push(other);
		return other;
	}

	it('never sends the old subscription’s DELETE to the new account; says which is left and where; refuses its deliveries', async () => {
		const harness = await trigger();
		await harness.activate();
		const [old] = sim.control.webhooks();
		await bookIntroCalls(sim, 1); // a delivery: this process now knows the old subscription's secret
		await sim.control.drainDeliveries();
		expect(harness.executions).toHaveLength(1);

		const other = await otherAccount();
		harness.setCredential({ apiKey: other.apiKeys.readWrite, baseUrl: other.baseUrl });
		await harness.activate();

		expect(deletesOf(other)).toEqual([]);
		expect(deletesOf(sim)).toEqual([]);
		expect(other.control.webhooks()).toHaveLength(1);
		expect(warnings(harness).join('\n')).toContain(old.id);
		expect(warnings(harness).join('\n')).toContain(sim.baseUrl);

		// The old account's next event starts nothing here: its subscription is no longer this trigger's.
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(sim.control.deliveries().filter((entry) => entry.subscriptionId === old.id).at(-1)?.status).toBe(401);
		expect(harness.executions).toHaveLength(1);
		expect(harness.nodeStaticData.undeleted).toBeUndefined();
	});

	it('without a known secret: says in the log which subscription is left and where, and deletes nothing', async () => {
		const harness = await trigger();
		await harness.activate();
		const [old] = sim.control.webhooks();
		const other = await otherAccount();
		// A fresh harness process: nothing unsealed in memory (the cache is per workflow and node).
		harness.setCredential({ apiKey: other.apiKeys.readWrite, baseUrl: other.baseUrl });

		await harness.activate();

		expect(deletesOf(other)).toEqual([]);
		expect(deletesOf(sim)).toEqual([]);
		const said = warnings(harness).find((line) => line.includes(old.id));
		expect(said).toMatch(/lives at http:\/\/127\.0\.0\.1:\d+\/v1/);
		expect(said).toMatch(/Settings → API keys and webhooks/);
	});

	it('a new key of the same account keeps the subscription in use and deletes nothing', async () => {
		const harness = await trigger();
		await harness.activate();
		const [old] = sim.control.webhooks();
		const { key } = sim.control.createKey('readWrite');
		harness.setCredential({ apiKey: key, baseUrl: sim.baseUrl });

		expect(await harness.activate()).toEqual({ created: false });

		expect(deletesOf(sim)).toEqual([]);
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
	});
});

describe('the credential switched to another account, whose service does not answer', () => {
	it('an account switch whose new account answers 429 while subscribing never deletes with the new key; the retry subscribes there', async () => {
		const harness = await trigger();
		await harness.activate();
		const [old] = sim.control.webhooks();
		const other = await startSimulator({ allowInsecureWebhookTargets: true, rateLimit: false, seed: 2 });
		otherSimulators.push(other);
		harness.setCredential({ apiKey: other.apiKeys.readWrite, baseUrl: other.baseUrl });
		other.control.addFault({ method: 'GET', path: '/me', count: 1, kind: 'rate_limit', retryAfterSeconds: 600 });
		await expect(harness.activate()).rejects.toThrow(/Could not read the Booking Service account/);
		expect(await harness.activate()).toEqual({ created: true });

		const deletes = [sim, other].flatMap((service) => service.control.requests().filter((request) => request.method === 'DELETE'));
		expect(deletes).toEqual([]);
		expect(sim.control.webhooks().map((subscription) => subscription.id)).toEqual([old.id]);
		expect(other.control.webhooks()).toHaveLength(1);
	});
});

describe('a subscription this node replaced but could not delete', () => {
	it('stays recorded and is deleted at the next activation; until then its deliveries start nothing', async () => {
		const harness = await trigger();
		await harness.activate();
		const [old] = sim.control.webhooks();
		// Replacing it fails (the events changed: checkExists deletes it, create tries once more).
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 2, kind: 'status', status: 500 });
		harness.setParameters({ events: ['booking.created', 'booking.cancelled'], options: {} });
		await harness.activate();
		expect(sim.control.webhooks()).toHaveLength(2);
		expect(harness.nodeStaticData.undeleted).toEqual([expect.objectContaining({ id: old.id })]);

		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(sim.control.deliveries().find((entry) => entry.subscriptionId === old.id)?.status).toBe(401);
		expect(harness.executions).toHaveLength(1); // from the new subscription only
		expect(harness.webhookStaticDataSaves).toBe(0);

		await harness.activate('init');
		expect(harness.nodeStaticData.undeleted).toBeUndefined();
		expect(sim.control.webhooks()).toHaveLength(1);
		expect(deletesOf(sim)).toEqual([old.id, old.id, old.id]);
	});

	it('an unverifiable delivery is refused like any other', async () => {
		const harness = await trigger();
		await harness.activate();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 2, kind: 'status', status: 500 });
		harness.setParameters({ events: ['*'], options: {} });
		await harness.activate();

		const body = syntheticEvent('booking.created', { id: 'x' });
		const answer = await harness.post(body, { 'Service-Signature': signFromScratch('not-the-secret', body) });
		expect(answer).toEqual({ status: 401, body: 'Unauthorized' });
	});
});

describe('bounded time', () => {
	it('deactivation sends one DELETE when rate limited for ten minutes, keeps the id and deletes it next time', async () => {
		const harness = await trigger();
		await harness.activate();
		const [subscription] = sim.control.webhooks();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 1, kind: 'rate_limit', retryAfterSeconds: 600 });

		await harness.deactivate();

		expect(deletesOf(sim)).toEqual([subscription.id]);
		expect(harness.nodeStaticData.undeleted).toEqual([expect.objectContaining({ id: subscription.id })]);
		await harness.activate();
		expect(sim.control.webhooks().map((entry) => entry.id)).not.toContain(subscription.id);
	});

	it('deactivation gives up on a DELETE that hangs (service slow) after its timeout, and keeps the id', async () => {
		const harness = await trigger();
		await harness.activate();
		const [subscription] = sim.control.webhooks();
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 1, kind: 'latency', latencyMs: 15_000 });

		await harness.deactivate(); // the test's own timeout (30 s) bounds it; the node's is 5 s

		expect(harness.nodeStaticData.undeleted).toEqual([expect.objectContaining({ id: subscription.id })]);
	}, 30_000);

	it('activation is not held by a rate-limited subscribe request: it fails at once and says so', async () => {
		const harness = await trigger();
		sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, kind: 'rate_limit', retryAfterSeconds: 600 });

		await expect(harness.activate()).rejects.toThrow(/rate limit/i);
		expect(sim.control.requests().filter((request) => request.route === '/webhooks')).toHaveLength(1);
	});
});

describe('a subscription whose creation answer was lost', () => {
	it('fails the activation, says so in the log, and the subscription names workflow, node and time', async () => {
		const harness = await trigger({ workflowName: 'Follow-ups' });
		sim.control.addFault({ method: 'POST', path: '/webhooks', count: 1, kind: 'drop', phase: 'after' });

		await expect(harness.activate()).rejects.toThrow();

		const [made] = sim.control.webhooks();
		expect(made.description).toMatch(
			new RegExp(`^n8n: Follow-ups – Booking Service Trigger – workflow ${harness.workflowId.slice(0, 20)}`),
		);
		expect(made.description).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
		expect(warnings(harness).join('\n')).toContain(made.description!);
		// n8n retries the activation: the node makes one it knows; the lost one stays recognisable in the app.
		await harness.activate();
		expect(sim.control.webhooks()).toHaveLength(2);
	});
});

describe('refusals', () => {
	it('while the secret cannot be read, a flood of requests reads the credential for one look at the account only', async () => {
		const harness = await trigger();
		await harness.activate();
		harness.editNodeStaticData((nodeData) => {
			const subscription = nodeData.subscription as { sealedSecret: string };
			subscription.sealedSecret = `${subscription.sealedSecret.slice(0, -4)}AAAA`; // no longer opens
		});
		const readsBefore = harness.credentialReads;

		for (let index = 0; index < 50; index++) {
			const body = syntheticEvent('booking.created', { id: String(index) });
			const answer = await harness.post(body, { 'Service-Signature': signFromScratch('guess', body) });
			expect(answer).toEqual({ status: 401, body: 'Unauthorized' });
		}
		// The node's own read, GET /me's (n8n's HTTP helper reads it again to authenticate) and one after it (the key did
		// not change meanwhile, RT5-C2): once a minute at most.
		expect(harness.credentialReads - readsBefore).toBeLessThanOrEqual(4);
		expect(harness.executions).toEqual([]);
	});

	it('requests without a well-formed signature header read no credential at all', async () => {
		const harness = await trigger();
		await harness.activate();
		const readsBefore = harness.credentialReads;
		const headers: Array<Record<string, string>> = [{}, { 'Service-Signature': 'nonsense' }, { 'Service-Signature': 't=abc,v1=00' }];
		for (const header of headers) {
			expect(await harness.post('{}', header)).toEqual({ status: 401, body: 'Unauthorized' });
		}
		expect(harness.credentialReads).toBe(readsBefore);
	});
});

describe('Event Types option', () => {
	it('runs only for bookings of the chosen event types; others are acknowledged without a run', async () => {
		const intro = sim.control.eventType('intro-call');
		const harness = await trigger({
			parameters: {
				events: ['*'],
				options: { eventTypes: { eventType: [{ eventType: { __rl: true, mode: 'id', value: intro.id } }] } },
			},
		});
		await harness.activate();
		const [subscription] = sim.control.webhooks();
		const booking = (id: string, eventTypeId: string) => ({ id, eventType: { id: eventTypeId, name: 'x', slug: 'x' } });

		const other = sim.control.eventTypes().find((eventType) => eventType.id !== intro.id)!;
		for (const [index, eventTypeId] of [intro.id, other.id].entries()) {
			const body = syntheticEvent('booking.created', booking(String(index), eventTypeId));
			const answer = await harness.post(body, { 'Service-Signature': signFromScratch(subscription.secret, body) });
			expect(answer.status).toBe(200);
		}

		expect(harness.executions).toHaveLength(1);
		expect((harness.executions[0].items[0].json.booking as { eventType: { id: string } }).eventType.id).toBe(intro.id);
	});
});
