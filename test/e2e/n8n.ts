// The n8n that the global setup started, as a client for test files.
import { inject } from 'vitest';
import { connectN8n, type N8nClient, type N8nConnection } from '../n8n/client.ts';

declare module 'vitest' {
	export interface ProvidedContext {
		/** Provided by ./global-setup.ts. */
		n8n: N8nConnection;
	}
}

export const PACKAGE = 'n8n-nodes-booking-service';
export const ACTION_NODE = `${PACKAGE}.bookingService`;
export const TRIGGER_NODE = `${PACKAGE}.bookingServiceTrigger`;
export const CREDENTIAL_TYPE = 'bookingServiceApi';

export function n8n(): N8nClient {
	return connectN8n(inject('n8n'));
}
