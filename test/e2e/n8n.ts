// The n8n that the global setup started, as a client for test files.
import { inject } from 'vitest';
import { connectN8n, type N8nClient, type N8nConnection } from '../n8n/client.ts';
import { N8N_HARNESS } from '../n8n/install.ts';

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


/**
 * What n8n itself shows where versions differ, in one place. The credential test of n8n 1.x and 2.16 replaces the
 * credential's own messages with generic ones, and names an unusable URL differently.
 */
export const CREDENTIAL_TEST_TEXT =
	N8N_HARNESS.genericCredentialTestTexts
		? {
				rejectedKey: /^Authorization failed - please check your credentials/,
				nothingAtBaseUrl: /^The resource you are requesting could not be found/,
				unusableBaseUrl: 'Invalid URL',
			}
		: {
				rejectedKey: /^The API key was rejected: it is wrong, revoked or incomplete\./,
				nothingAtBaseUrl: /^Nothing found at this Base URL\. It must be the service's base URL including the version prefix/,
				unusableBaseUrl: 'ERR_INVALID_URL',
			};

export function n8n(): N8nClient {
	return connectN8n(inject('n8n'));
}
