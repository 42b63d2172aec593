// The reference the webhook trigger's histories are judged against, from the logs alone:
// - genuine events are what the simulator's delivery log says it sent to the Production URL;
// - forged requests are what the test sent itself (WebhookWorld.forge);
// - a run is an execution webhook() started (the harness's `executions`), in one process.
import type { RecordedExecution } from '../../harness/trigger.ts';
import type { WebhookWorld } from './world.ts';

interface Run {
	process: number;
	eventId: string;
	type: string;
	booking: Booking;
	forged: string | undefined;
}

interface Booking {
	id: string;
	updatedAt?: string;
}

/**
 * What a delivery reports that cannot happen twice: a booking's creation, cancellation or no-show, or its reschedule
 * at one moment (the booking's updatedAt then; a checked delivery reports the booking as the service has it).
 */
function factOf(type: string, booking: Booking): string | undefined {
	if (type === 'booking.rescheduled') return `${booking.id}/${type}@${booking.updatedAt}`;
	return ['booking.created', 'booking.cancelled', 'booking.no_show'].includes(type) ? `${booking.id}/${type}` : undefined;
}

/** A checked run's id is derived from what it reports (security doc): it stands for a genuine event of that kind and booking. */
const checkedKind = (run: Run) => (run.eventId.startsWith('chk_') ? `${run.booking?.id}/${run.type}` : undefined);

function runOf(process: number, execution: RecordedExecution, forged: string | undefined): Run {
	const json = execution.items[0].json as { eventId: string; eventType: string; booking: Booking };
	return { process, eventId: json.eventId, type: json.eventType, booking: json.booking, forged };
}

/**
 * What n8n and the user do before the end of a history is judged: every fault is gone, the workflow is published
 * (again, if the user or a failed activation left it unpublished), and the service's retries all come due.
 */
export async function settle(world: WebhookWorld): Promise<void> {
	for (const account of world.accounts) {
		account.control.clearFaults();
		account.control.setDeliveryMode({ duplicates: 0, shuffle: false });
	}
	world.credentialFailures = 0;
	world.answersToLose = 0;
	world.race = undefined;
	await world.deliver();
	if (!world.active) {
		world.markPublished();
		await world.activate('activate');
	}
	// The service retries for about four days (1 min … 24 h); six days of 12-hour steps leave none due. A flood goes
	// on: the docs promise it delays a genuine delivery at most until the service's next retry.
	for (let step = 0; step < 12; step++) {
		world.advance(12 * 3_600_000);
		await world.deliver();
	}
}

/**
 * Subscriptions the service made although the answer to POST /webhooks was lost: the docs state that the API offers
 * no way to find them (activation fails, the log says so, the description names workflow, node and time).
 */
export function strays(world: WebhookWorld): Set<string> {
	const found = new Set<string>();
	for (const account of world.accounts) {
		const unanswered = new Set(
			account.control
				.requests()
				.filter((request) => request.method === 'POST' && request.route === '/webhooks' && request.status !== 201)
				.map((request) => Date.parse(request.at)),
		);
		for (const subscription of account.control.webhooks()) {
			if (unanswered.has(Date.parse(subscription.createdAt))) found.add(subscription.id);
		}
	}
	return found;
}

/**
 * When the user first switched the credential away from account `index` at or after `ms`, the time a subscription was
 * made: the docs state that the old subscription's deliveries are then refused, and that the user deletes it in that
 * account's app. An activation under way at `ms` made it with the credential it read when it began (seed 5401: a
 * switch back during the activation left the new subscription in the account switched away from, the log naming it).
 */
export function switchAwayAfter(world: WebhookWorld, index: number, ms: number): number | undefined {
	const during = world.activations.filter((activation) => activation.startMs <= ms && ms <= activation.endMs);
	const readMs = Math.min(ms, ...during.map((activation) => activation.startMs));
	return world.switches.find((entry) => entry.from === index && entry.atMs >= readMs)?.atMs;
}

/** Whether the docs say that what the service sent one subscription (`copy`: its attempts of one event) may be lost. */
function dropped(world: WebhookWorld, stray: Set<string>, subscriptionId: string, copy: Array<{ at: string }>): boolean {
	// The user unpublished: what the service still had to deliver to that subscription is dropped (docs).
	if (world.unpublished.has(subscriptionId)) return true;
	// A stray subscription's deliveries are refused: the node never learnt its secret (docs, see strays()).
	if (stray.has(subscriptionId)) return true;
	// The credential was switched away from the subscription's account after it was made: the docs say that the
	// old subscription's deliveries are refused until the user deletes it (also once the credential names it again).
	const seen = world.subscriptionsSeen.get(subscriptionId);
	const away = seen === undefined ? undefined : switchAwayAfter(world, seen.account, seen.createdMs);
	return away !== undefined && copy.some((entry) => Date.parse(entry.at) >= away);
}

/** Every way the history broke a promise; empty when it kept them all. */
export function violations(world: WebhookWorld): string[] {
	const found: string[] = [...world.violations];
	const productionUrl = world.harness.productionUrl;
	// Every account's events: the credential may have named either when the service emitted them.
	const emitted = new Map(
		world.accounts.flatMap((account, index) => account.control.events().map((event) => [event.id, { ...event, account: index }] as const)),
	);
	const delivered = world.accounts.flatMap((account) => account.control.deliveries()).filter((entry) => entry.url === productionUrl);
	const genuineIds = new Set(delivered.map((entry) => entry.eventId));
	const genuineEvents = [...genuineIds].map((id) => emitted.get(id)!);
	const genuineFacts = new Set(genuineEvents.map((event) => factOf(event.type, event.data.booking as Booking)));
	const genuineKinds = new Set(genuineEvents.map((event) => `${event.data.booking.id}/${event.type}`));
	const reportsGenuine = (run: Run) => genuineIds.has(run.eventId) || genuineKinds.has(checkedKind(run) ?? '');

	const runs: Run[] = [];
	for (const process of world.processes) {
		const seenIds = new Set<string>();
		const seenFacts = new Set<string>();
		process.harness.executions.forEach((execution, index) => {
			if (execution.mode !== 'production') return;
			const run = runOf(process.index, execution, process.forgedRuns.get(index));
			runs.push(run);
			const fact = factOf(run.type, run.booking);
			// Once per process: the memory of what ran is per process and lost on a restart (docs, "delivered twice").
			if (seenIds.has(run.eventId)) found.push(`event ${run.eventId} (${run.type}) ran twice in process ${run.process}`);
			if (fact !== undefined && seenFacts.has(fact)) found.push(`fact ${fact} ran twice in process ${run.process}`);
			seenIds.add(run.eventId);
			if (fact !== undefined) seenFacts.add(fact);
			if (run.forged === undefined) {
				if (!reportsGenuine(run)) found.push(`event ${run.eventId} ran but the service never delivered it`);
				return;
			}
			// A captured delivery replayed as it was is the genuine event (the service's retry looks the same), and a
			// request whose booking the service confirms reports a genuine fact (security doc: checked deliveries).
			if (!reportsGenuine(run) && (fact === undefined || !genuineFacts.has(fact))) {
				found.push(`forged request (${run.forged}) ran: ${run.type} of booking ${run.booking?.id}, event ${run.eventId}`);
			}
		});
	}

	for (const other of world.processes.flatMap((process) => process.others)) {
		// The other workflows of a flood get no delivery at all: whatever ran there was forged.
		if (other.executions.length > 0) found.push(`a flood's forged request ran at another workflow (${other.executions.length} runs)`);
	}

	world.noteSubscriptions();
	world.accounts.forEach((account, index) => {
		for (const request of account.control.requests().filter((entry) => entry.method === 'DELETE' && entry.route === '/webhooks/{id}')) {
			const home = world.subscriptionsSeen.get(request.path.split('/').at(-1)!)?.account;
			// The docs: after an account switch, the old subscription is never deleted with the new key.
			if (home !== undefined && home !== index) found.push(`account ${index} was asked to delete account ${home}'s subscription`);
		}
	});

	// No subscription is deleted while the service still has something to deliver to it, unless the user unpublished
	// (the docs: unpublishing deletes; what was pending is dropped). The simulator logs what it then drops as skipped.
	const droppedByDelete = delivered.filter((entry) => entry.outcome === 'skipped' && entry.error === 'subscription deleted');
	for (const subscriptionId of new Set(droppedByDelete.map((entry) => entry.subscriptionId))) {
		if (!world.unpublished.has(subscriptionId)) found.push(`subscription ${subscriptionId} was deleted with deliveries still pending`);
	}

	const stray = strays(world);
	const ranIds = new Set(runs.map((run) => run.eventId));
	const ranFacts = new Set(runs.map((run) => factOf(run.type, run.booking)));
	for (const id of genuineIds) {
		const event = emitted.get(id)!;
		const attempts = delivered.filter((entry) => entry.eventId === id);
		// Unpublished, the workflow refuses what arrives (the docs: deliveries meanwhile are refused).
		if (world.unpublishedAt(Date.parse(event.createdAt))) continue;
		if (ranIds.has(id) || ranFacts.has(factOf(event.type, event.data.booking as Booking))) continue;
		// The docs (Rotating the API key): a checked delivery reports the booking as it is then, so a reschedule checked
		// only after a later move of the same booking runs once with that later time (trigger/model-regressions: it.fails).
		const movedOn = (run: Run) =>
			checkedKind(run) === `${event.data.booking.id}/booking.rescheduled` &&
			String(run.booking?.updatedAt) >= String((event.data.booking as Booking).updatedAt);
		if (event.type === 'booking.rescheduled' && runs.some(movedOn)) continue;
		const subscriptions = new Set(attempts.map((entry) => entry.subscriptionId));
		const copyOf = (subscriptionId: string) => attempts.filter((entry) => entry.subscriptionId === subscriptionId);
		if ([...subscriptions].every((subscriptionId) => dropped(world, stray, subscriptionId, copyOf(subscriptionId)))) continue;
		const outcomes = attempts.map((entry) => `${entry.outcome}${entry.status === undefined ? '' : ` ${entry.status}`}`);
		found.push(`genuine event ${id} (${event.type}) never ran; attempts: ${outcomes.join(', ')}`);
	}
	return found;
}

/**
 * After the user stops listening, tests once more (the docs: a test subscription the service would not delete is
 * deleted at the next test) and unpublishes, with nothing failing, no subscription of the node is left.
 */
export async function leftSubscriptions(world: WebhookWorld): Promise<string[]> {
	for (const step of [() => world.harness.stopListening(), () => world.harness.listenForTestEvent(), () => world.harness.stopListening()]) {
		try {
			await step();
		} catch {
			// judged below: the subscription is left
		}
	}
	await world.unpublish();
	const lastRestartMs = world.restartsAtMs.at(-1) ?? -Infinity;
	const stray = strays(world);
	return world.accounts.flatMap((account, index) =>
		account.control
			.webhooks()
			// Stated in the docs: a test subscription is deleted by the process that made it; if n8n restarts first, the
			// user deletes it in the app (its description says "(test URL)").
			.filter((subscription) => !(subscription.url === world.harness.testUrl && Date.parse(subscription.createdAt) <= lastRestartMs))
			.filter((subscription) => !stray.has(subscription.id))
			// Stated in the docs: after an account switch the log names the old subscription; the user deletes it there.
			.filter((subscription) => switchAwayAfter(world, index, Date.parse(subscription.createdAt)) === undefined)
			.map((subscription) => `subscription left in account ${index}: ${subscription.url} (${subscription.status})`),
	);
}
