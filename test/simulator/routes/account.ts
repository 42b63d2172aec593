/** GET /me: the account for the key, with that key's scopes. Any valid key may call it. */
import { accountResource } from '../resources.ts';
import type { Route } from './route.ts';

export const getAccount: Route = {
	operation: 'me',
	method: 'GET',
	pattern: '/me',
	handle: ({ sim, key }) => {
		// Only the OpenAPI document is served without a key; the server authenticated this call.
		if (key === null) throw new Error('GET /me reached without a key');
		return { status: 200, body: accountResource(sim.store, key.choice) };
	},
};
