/** Every operation served under /v1, in the contract's order. */
import { openApiDocument } from '../openapi.ts';
import { getAccount } from './account.ts';
import { cancelBookingRoute, createBookingRoute, getBooking, listBookings } from './bookings.ts';
import { getSlots, listEventTypes } from './event-types.ts';
import { createInvite } from './invites.ts';
import type { Route } from './route.ts';
import { createWebhook, deleteWebhook } from './webhooks.ts';

const openApi: Route = {
	operation: 'openapi',
	method: 'GET',
	pattern: '/openapi.json',
	handle: ({ sim }) => ({ status: 200, body: openApiDocument(`${sim.origin}/v1`) }),
};

export const ROUTES: readonly Route[] = [
	getAccount,
	listEventTypes,
	getSlots,
	listBookings,
	createBookingRoute,
	getBooking,
	cancelBookingRoute,
	createInvite,
	createWebhook,
	deleteWebhook,
	openApi,
];

/**
 * The operation for a method and a path under /v1, with the raw `{id}` segment (validated later).
 */
export function matchRoute(method: string, path: string): { route: Route; id: string } | undefined {
	const segments = path.split('/');
	for (const route of ROUTES) {
		const parts = route.pattern.split('/');
		if (route.method !== method || parts.length !== segments.length) continue;
		let id = '';
		const fits = parts.every((part, index) => {
			if (part !== '{id}') return part === segments[index];
			id = segments[index];
			return id !== '';
		});
		if (fits) return { route, id };
	}
	return undefined;
}
