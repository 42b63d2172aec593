/** POST /webhooks and DELETE /webhooks/{id}. */
import { ApiError, notFound, validationFailed } from '../errors.ts';
import { SUBSCRIBABLE_EVENTS } from '../model.ts';
import {
	DELETE_WEBHOOK_STATUS,
	MAX_WEBHOOK_SUBSCRIPTIONS,
	WEBHOOK_CREATED_VIA,
	WEBHOOK_SECRET_PREFIX,
} from '../policy.ts';
import { createdSubscriptionResource } from '../resources.ts';
import type { Simulation } from '../simulation.ts';
import { ObjectReader, Problems, parseJsonObjectBody } from '../validation.ts';
import { TargetRefused, approveTarget, targetUrlProblem } from '../webhooks.ts';
import type { Route } from './route.ts';

function assertBelowLimit(sim: Simulation): void {
	if (sim.store.subscriptions.size >= MAX_WEBHOOK_SUBSCRIPTIONS) {
		throw new ApiError(
			'bad_request',
			`An account can have at most ${MAX_WEBHOOK_SUBSCRIPTIONS} webhook subscriptions.`,
		);
	}
}

export const createWebhook: Route = {
	operation: 'createWebhook',
	method: 'POST',
	pattern: '/webhooks',
	handle: async ({ sim, headers, rawBody }) => {
		const body = parseJsonObjectBody(headers['content-type'], rawBody);
		const problems = new Problems();
		const reader = new ObjectReader(problems, body);
		reader.onlyFields(['url', 'events', 'description']);
		const url = reader.string('url', {
			required: true,
			max: 2000,
			check: (value) => targetUrlProblem(value, sim.allowInsecureWebhookTargets),
		});
		const events = reader.array('events', { required: true, min: 1, max: 20 });
		events?.forEach((event, index) => {
			if (typeof event !== 'string' || !SUBSCRIBABLE_EVENTS.includes(event)) {
				reader.problem(`events[${index}]`, `must be one of ${SUBSCRIBABLE_EVENTS.join(', ')}`);
			}
		});
		const description = reader.string('description', { max: 200 });
		problems.throwIfAny();
		assertBelowLimit(sim);
		try {
			await approveTarget(url!, sim.allowInsecureWebhookTargets);
		} catch (error) {
			if (error instanceof TargetRefused)
				throw validationFailed([{ field: 'url', message: error.message }]);
			throw error;
		}
		// The address check awaited DNS; another request may have taken the last place meanwhile.
		assertBelowLimit(sim);
		const { store } = sim;
		const subscription = {
			id: store.ids.id(),
			url: url!,
			events: events as string[],
			description: description ?? null,
			status: 'active' as const,
			createdVia: WEBHOOK_CREATED_VIA,
			lastSuccessAtMs: null,
			consecutiveFailures: 0,
			failureStreakStartedMs: null,
			createdAtMs: sim.clock.now(),
			secret: `${WEBHOOK_SECRET_PREFIX}${store.ids.hex(48)}`,
		};
		store.subscriptions.set(subscription.id, subscription);
		return {
			status: 201,
			headers: { Location: `${sim.origin}/v1/webhooks/${subscription.id}` },
			body: createdSubscriptionResource(subscription),
		};
	},
};

export const deleteWebhook: Route = {
	operation: 'deleteWebhook',
	method: 'DELETE',
	pattern: '/webhooks/{id}',
	handle: ({ sim, pathId }) => {
		if (!sim.store.subscriptions.delete(pathId)) throw notFound('Webhook subscription');
		// Effective immediately: nothing still queued for it goes out.
		sim.deliveries.discardFor(pathId, 'subscription deleted');
		return { status: DELETE_WEBHOOK_STATUS };
	},
};
