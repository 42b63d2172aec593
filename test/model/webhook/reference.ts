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
	bookingId: string;
	forged: string | undefined;
}

/** What a delivery reports that cannot happen twice: a booking's creation, cancellation or no-show. */
function factOf(type: string, bookingId: string): string | undefined {
	return ['booking.created', 'booking.cancelled', 'booking.no_show'].includes(type) ? `${bookingId}/${type}` : undefined;
}

/** A checked run's id is derived from what it reports (security doc): it stands for a genuine event of that kind and booking. */
const checkedKind = (run: Run) => (run.eventId.startsWith('chk_') ? `${run.bookingId}/${run.type}` : undefined);

function runOf(process: number, execution: RecordedExecution, forged: string | undefined): Run {
	const json = execution.items[0].json as { eventId: string; eventType: string; booking: { id: string } };
	return { process, eventId: json.eventId, type: json.eventType, bookingId: json.booking?.id, forged };
}

/**
 * What n8n and the user do before the end of a history is judged: every fault is gone, the workflow is published
 * (again, if the user or a failed activation left it unpublished), and the service's retries all come due.
 */
export async function settle(world: WebhookWorld): Promise<void> {
	world.sim.control.clearFaults();
	world.credentialFailures = 0;
	world.answersToLose = 0;
	world.sim.control.setDeliveryMode({ duplicates: 0, shuffle: false });
	await world.deliver();
	if (!world.active) {
		world.markPublished();
		await world.activate('activate');
	}
	// The service retries for about four days (1 min … 24 h); six days of 12-hour steps leave none due.
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
	const unanswered = new Set(
		world.sim.control
			.requests()
			.filter((request) => request.method === 'POST' && request.route === '/webhooks' && request.status !== 201)
			.map((request) => Date.parse(request.at)),
	);
	return new Set(world.sim.control.webhooks().filter((subscription) => unanswered.has(Date.parse(subscription.createdAt))).map((subscription) => subscription.id));
}

/** Every way the history broke a promise; empty when it kept them all. */
export function violations(world: WebhookWorld): string[] {
	const found: string[] = [...world.violations];
	const productionUrl = world.harness.productionUrl;
	const emitted = new Map(world.sim.control.events().map((event) => [event.id, event]));
	const delivered = world.sim.control.deliveries().filter((entry) => entry.url === productionUrl);
	const genuineIds = new Set(delivered.map((entry) => entry.eventId));
	const genuineEvents = [...genuineIds].map((id) => emitted.get(id)!);
	const genuineFacts = new Set(genuineEvents.map((event) => factOf(event.type, event.data.booking.id)));
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
			const fact = factOf(run.type, run.bookingId);
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
				found.push(`forged request (${run.forged}) ran: ${run.type} of booking ${run.bookingId}, event ${run.eventId}`);
			}
		});
	}

	const stray = strays(world);
	const ranIds = new Set(runs.map((run) => run.eventId));
	const ranFacts = new Set(runs.map((run) => factOf(run.type, run.bookingId)));
	const ranChecked = new Set(runs.map(checkedKind));
	for (const id of genuineIds) {
		const event = emitted.get(id)!;
		const attempts = delivered.filter((entry) => entry.eventId === id);
		// The user unpublished: what the service still had to deliver to that subscription is dropped (docs).
		if (attempts.every((entry) => world.unpublished.has(entry.subscriptionId))) continue;
		// A stray subscription's deliveries are refused: the node never learnt its secret (docs, see strays()).
		if (attempts.every((entry) => stray.has(entry.subscriptionId))) continue;
		// Unpublished, the workflow refuses what arrives (the docs: deliveries meanwhile are refused).
		if (world.unpublishedAt(Date.parse(event.createdAt))) continue;
		if (ranIds.has(id) || ranFacts.has(factOf(event.type, event.data.booking.id))) continue;
		if (ranChecked.has(`${event.data.booking.id}/${event.type}`)) continue; // a checked run proves the booking's state
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
	return (
		world.sim.control
			.webhooks()
			// Stated in the docs: a test subscription is deleted by the process that made it; if n8n restarts first, the
			// user deletes it in the app (its description says "(test URL)").
			.filter((subscription) => !(subscription.url === world.harness.testUrl && Date.parse(subscription.createdAt) <= lastRestartMs))
			.filter((subscription) => !stray.has(subscription.id))
			.map((subscription) => `subscription left: ${subscription.url} (${subscription.status})`)
	);
}
