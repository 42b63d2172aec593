// Floods: bursts of forged requests at the workflow's Production URL alone, or spread over it and other active
// triggers of the same processes (other workflows, in an account of their own), enough to spend the per-trigger and
// per-process budgets of nodes/BookingServiceTrigger/budget.ts. None may run, and the docs promise that a flood
// delays a genuine delivery at most until the service's next retry.
import type { WebhookWorld } from './world.ts';
import type { ForgeryKind } from './forgeries.ts';
import { forgery } from './forgeries.ts';

/** Requests per burst: past one trigger's share of look-ups (20); over four triggers, past the process's (30). */
export const FLOOD_SIZES = [35, 110] as const;
/** Other triggers flooded beside the workflow, per process. */
const OTHERS = 3;
const IN_FLIGHT = 10;
/** What a flood sends: requests that look like deliveries and name what the node would have to look up. */
const KINDS: ForgeryKind[] = ['real booking', 'made up', 'replayed under a new event id'];

async function othersIn(world: WebhookWorld): Promise<string[]> {
	const urls: string[] = [];
	for (const process of world.live) {
		while (process.others.length < OTHERS) {
			const other = await process.startTrigger({
				baseUrl: world.decoyAccount.baseUrl,
				apiKey: world.decoyAccount.apiKeys.readWrite,
				parameters: { events: ['*'], options: {} },
				workflowId: `${world.workflowId}-other-${process.index}-${process.others.length}`,
			});
			process.others.push(other);
			await other.activate().catch(() => {}); // an injected fault: the flood then costs it nothing, as in n8n
		}
		urls.push(...process.others.map((other) => other.productionUrl));
	}
	return urls;
}

/** Sends one burst; runs it starts at the workflow are recorded as forged, at the other triggers judged in reference.ts. */
export async function sendFlood(world: WebhookWorld, flood: { count: number; several: boolean }): Promise<void> {
	const own = world.harness.productionUrl;
	const others = flood.several ? await othersIn(world) : [];
	const urls = [own, ...others];
	let next = 0;
	await Promise.all(
		Array.from({ length: IN_FLIGHT }, async () => {
			for (let index = next++; index < flood.count; index = next++) {
				const kind = KINDS[index % KINDS.length];
				const made = forgery(world, kind, index) ?? forgery(world, 'made up', index)!;
				const url = urls[index % urls.length];
				await world.forge(`flood: ${kind}`, made.body, made.headers, url).catch(() => {}); // a refused connection is refused
			}
		}),
	);
}
