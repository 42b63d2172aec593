// Static data is one JSON value on the workflow row, and n8n saves a webhook()'s copy of it whole — the copy it read
// when the request arrived. Main writes the subscription record on activation; in queue mode a webhook process may be
// holding an older copy at that moment. So the trigger's webhook() must never change static data: whatever it wrote
// would put the old subscription record back. These tests hold the harness to n8n's save rule (save when
// `__dataChanged`), the one 1.x and 2.x share; the queue-mode e2e suite races the same thing in real n8n.
import { beforeEach, describe, expect, it } from 'vitest';
import type { TriggerHarness } from '../harness/trigger.ts';
import { useTestSimulator } from '../harness/fixtures.ts';
import { bookIntroCalls, signFromScratch, syntheticEvent } from './support.ts';
import { useTriggerHarnesses } from './harnesses.ts';

const sim = useTestSimulator({ allowInsecureWebhookTargets: true }, { clock: 'real' });
let trigger: TriggerHarness;

const harnesses = useTriggerHarnesses(sim);

beforeEach(async () => {
	trigger = await harnesses.start({ parameters: { events: ['booking.created'], options: {} } });
});

describe("the trigger's webhook() and static data", () => {
	it('changes nothing, whatever the delivery: accepted, repeated, unselected, forged or from a replaced subscription', async () => {
		await trigger.activate();
		const [first] = sim.control.webhooks();
		// A replaced subscription whose DELETE failed: recorded as undeleted, still delivering.
		sim.control.addFault({ method: 'DELETE', path: '/webhooks/{id}', count: 2, kind: 'status', status: 500 });
		trigger.setParameters({ events: ['booking.created', 'booking.cancelled'], options: {} });
		await trigger.activate();
		const savedByMain = trigger.savedStaticData;
		const current = sim.control.webhooks().find((subscription) => subscription.id !== first.id)!;

		await bookIntroCalls(sim, 2); // accepted from the current one, refused from the undeleted one
		await sim.control.drainDeliveries();
		const acceptedId = String(trigger.executions[0].items[0].json.eventId);
		const body = trigger.received.find((request) => request.headers['service-event-id'] === acceptedId)!.rawBody;
		const { booking } = (JSON.parse(body.toString('utf8')) as { data: { booking: unknown } }).data;
		const send = async (payload: string | Buffer, signature: string) =>
			await trigger.post(payload, { 'Service-Signature': signature });
		const answers = [
			await send(body, signFromScratch(current.secret, body)), // the same event again
			await send(syntheticEvent('booking.no_show', booking), signFromScratch(current.secret, 'x')), // forged
			await send(syntheticEvent('booking.no_show', booking), 'v1=nothing-like-a-signature'),
		];
		const unselected = syntheticEvent('booking.no_show', booking);
		answers.push(await send(unselected, signFromScratch(current.secret, unselected)));

		expect(sim.control.deliveries().find((entry) => entry.subscriptionId === first.id)?.status).toBe(401);
		expect(answers.map((answer) => answer.status)).toEqual([200, 401, 401, 200]);
		expect(trigger.executions).toHaveLength(2);
		expect(trigger.webhookStaticDataSaves).toBe(0);
		expect(trigger.savedStaticData).toBe(savedByMain);
	});

	it('a delivery that read static data before a re-activation leaves the new subscription record in place', async () => {
		await trigger.activate();
		const [old] = sim.control.webhooks();
		let raced = false;
		// The delivery below has loaded static data (the old record); main now re-activates with another event
		// selection: the old subscription is deleted, a new one made and stored. Then the delivery's webhook() runs.
		trigger.beforeWebhook = async () => {
			if (raced) return;
			raced = true;
			trigger.setParameters({ events: ['booking.created', 'booking.cancelled'], options: {} });
			await trigger.activate();
		};

		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();

		expect(raced).toBe(true);
		const [current] = sim.control.webhooks();
		expect(current.id).not.toBe(old.id);
		// The delivery verified against the old secret it had read, and ran once.
		expect(trigger.executions).toHaveLength(1);
		// What main stored survives, so the new subscription's deliveries verify.
		expect(trigger.nodeStaticData.subscription).toMatchObject({ id: current.id });
		await bookIntroCalls(sim, 1);
		await sim.control.drainDeliveries();
		expect(sim.control.deliveries().filter((entry) => entry.subscriptionId === current.id).map((entry) => entry.status)).toEqual([
			200,
		]);
		expect(trigger.executions).toHaveLength(2);
	});
});
