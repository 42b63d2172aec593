// Red team 5, budget part 2: genuine backlogs after a key rotation (no forger at all). Promise under attack
// (docs/webhook-trigger.md, "What holds"): "n8n down for a while: the service retries deliveries (for days); each runs
// once when n8n is back", and after a rotation "every event runs once". The security page's limit: "a backlog of more
// than about 30 at once (n8n's start) waits for the service's retries, where a listing confirms them".
import { describe, expect, it } from 'vitest';
import { startTestSimulator } from '../harness/fixtures.ts';
import { TestCredentialsHelper } from '../harness/engine.ts';
import { api, freeIntroCallStarts, rotateKey } from './support.ts';
import { rotationSetup, runKinds } from './rotation-support.ts';
import { budgetSteps, noSecret } from './red-team-budget-support.ts';
import { forgedBody } from './rotation-support.ts';

const setup = rotationSetup();
const { sim, advance, activeTrigger, bookLatest, serviceRetries } = setup;
const { backlog } = budgetSteps(setup);

describe('red team 5: a genuine backlog after a rotation, the service’s whole retry schedule, no forger', () => {
	it('held: 150 cancellations at once: every one runs once within the schedule', async () => {
		const result = await backlog(150);
		process.stdout.write(`[rt5 backlog 150] ${JSON.stringify(result)}\n`);
		expect(result.events).toBe(150);
		expect({ runs: result.runs, neverRan: result.neverRan }).toEqual({ runs: 150, neverRan: 0 });
	}, 60_000);

	// RT5-B2 (fixed: the account's listing reads up to five pages; no forger). History: one active trigger;
	// its credential gets a new key of the same account and the old key is revoked (a rotation, no republish). n8n is down
	// while the host cancels 300 bookings, one every 100 ms (made earlier, silently: only the cancellations are events).
	// The service then attempts the 300 deliveries on its schedule (0, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 1 d, 1 d, 1
	// d), oldest first, 50 ms apart, and stops retrying each once answered 2xx. Attempt 1: the trigger's share allows 20
	// look-ups, then its listing (one page, the 100 bookings changed last) confirms the 100 newest; every later attempt
	// adds about 20 look-ups; the listing never shows the older ones again. 11 cancellations are refused at all ten
	// attempts and never run (400 at once: 101 lost). Worse than the security page's limit, which says such a backlog
	// "waits for the service's retries, where a listing confirms them". Promise broken: "n8n down for a while: … each runs
	// once when n8n is back"; "every event runs once".
	it('RT5-B2: 300 cancellations while n8n is down after a rotation: every one runs once within the service’s retry schedule', async () => {
		const result = await backlog(300);
		process.stdout.write(`[rt5 backlog 300] ${JSON.stringify(result)}\n`);
		expect(result.events).toBe(300);
		expect({ runs: result.runs, neverRan: result.neverRan }).toEqual({ runs: 300, neverRan: 0 });
	}, 60_000);

	// RT5-B2, several triggers: three workflows of the account rotated together shared the process bucket (29 look-ups
	// at once, then one every 2 s, for all three): 220 cancellations, each delivered to all three subscriptions, lost 78
	// deliveries (26 per trigger) across the schedule before the fix; 190 each held.
	it('RT5-B2: 220 cancellations at three rotated triggers while n8n is down: every delivery runs once within the schedule', async () => {
		const result = await backlog(220, 3);
		process.stdout.write(`[rt5 backlog 3 × 220] ${JSON.stringify(result)}\n`);
		expect(result.events).toBe(220);
		expect({ runs: result.runs, neverRan: result.neverRan }).toEqual({ runs: 660, neverRan: 0 });
	}, 60_000);
});

describe('red team 5: the checked path after a rotation, genuine traffic only', () => {
	// RT5-C1 (fixed: a checked request that ran is known by its event id and the booking and kind it named;
	// no forger). History: trigger active; key rotated (new key of the same account in the credential, old key revoked; no
	// republish). A booking is made (its creation runs, checked), then moved by the booker: the reschedule is delivered,
	// confirmed by reading the booking, and runs. Then a change with no event: the host edits the notes (or the meeting
	// takes place). The service sends the reschedule again, same event id and bytes (its answer was lost; the contract
	// also allows a delivery more than once). The node reads the booking, whose updatedAt is now the notes edit, derives a
	// new fact "rescheduled@<new updatedAt>" and runs the reschedule a second time. Promise broken: "An event delivered
	// twice … runs once per n8n process"; after a rotation "every event still runs once". A checked run's event id is not
	// stored (issue 37-3), and the signed-id guard (red-team-held.test.ts) does not apply: the reschedule ran checked.
	it.each(['notes edited', 'meeting completed'])('RT5-C1: a checked reschedule that ran, delivered again after the booking changed without an event (%s), runs once', async (change) => {
		const trigger = await activeTrigger();
		const [subscription] = sim.control.webhooks();
		const newKey = rotateKey(sim, trigger);
		const booking = await bookLatest(newKey);
		await sim.control.drainDeliveries();
		advance(60_000);
		const { starts } = await freeIntroCallStarts(sim, newKey);
		sim.control.reschedule(booking.id, { start: starts[0], by: 'booker' });
		await sim.control.drainDeliveries(); // confirmed through the service, and run
		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.rescheduled']);
		advance(60_000);
		if (change === 'notes edited') sim.control.editNotes(booking.id, { notes: 'parking at the back' });
		else sim.control.complete(booking.id);
		const retries = await serviceRetries(trigger, 'booking.rescheduled', subscription.id, 1);
		expect(retries).toEqual([200]);
		expect(runKinds(trigger)).toEqual(['booking.created', 'booking.rescheduled']);
	});
});

describe('red team 5: the account-switch fix, a credential switched in the middle of a request', () => {
	// RT5-C2 (fixed: each read is made between two checks that the credential holds the proven key). History:
	// trigger active in account A; key rotated (new key of A in the credential, old revoked); a booking is made and its
	// delivery runs, checked (the rotated state is now remembered). Account B (another service account, e.g. the builder's
	// second one) has a booking made after A's subscription existed. A forged booking.created naming B's booking (no key,
	// no secret) arrives; while it is being checked, the credential is switched to B's key and Base URL — after keyHolds()
	// read it (still A's new key), before the look-up's own reads (the transport reads the credential again for the Base
	// URL and for the key). The look-up reads B's booking and the forged creation runs at A's subscription. Promise
	// broken: "Read only with the key proven for the subscription's account … a booking of the new account never runs at
	// the old subscription" (security page, 2).
	it('RT5-C2: a forged creation naming the new account’s booking, checked while the credential is switched, starts nothing', async () => {
		const other = await startTestSimulator({ allowInsecureWebhookTargets: true, now: undefined, seed: 2 });
		try {
			const trigger = await activeTrigger();
			const newKey = rotateKey(sim, trigger);
			await bookLatest(newKey);
			await sim.control.drainDeliveries(); // checked and run: the rotation is remembered for a minute
			expect(trigger.executions).toHaveLength(1);
			advance(2_000);
			const { starts } = await freeIntroCallStarts(other, other.apiKeys.readWrite);
			const eventTypeId = other.control.eventType('intro-call').id;
			const booker = { name: 'B guest', email: 'b.guest@example.com', timezone: 'Europe/Berlin' };
			const theirs = await api<{ id: string }>(other, 'POST', '/bookings', { eventTypeId, start: starts[0], booker }, other.apiKeys.readWrite);
			advance(2_000);

			const original = TestCredentialsHelper.prototype.getDecrypted;
			let reads = 0;
			TestCredentialsHelper.prototype.getDecrypted = async function (this: TestCredentialsHelper, ...args: Parameters<typeof original>) {
				reads += 1; // the first read is keyHolds(); the builder's switch lands right after it
				return reads === 1 ? await original.apply(this, args) : { apiKey: other.apiKeys.readWrite, baseUrl: other.baseUrl };
			};
			let answer: { status: number };
			try {
				const body = forgedBody('booking.created', { id: theirs.id });
				answer = await trigger.post(body, noSecret(body));
			} finally {
				TestCredentialsHelper.prototype.getDecrypted = original;
			}
			expect(reads).toBeGreaterThanOrEqual(2);
			expect({ status: answer.status, runs: trigger.executions.length }).toEqual({ status: 401, runs: 1 });
		} finally {
			await other.close();
		}
	});
});
