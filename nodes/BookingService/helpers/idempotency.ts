/**
 * Idempotency keys for POST /bookings.
 *
 * n8n's Retry On Fail runs the node again inside the same execution and run. A booking request whose answer was lost
 * (timeout, dropped connection, 5xx after the booking was stored) is then sent again; with the same Idempotency-Key
 * the service returns the booking it already made instead of making a second one. So the key must be identical on
 * every retry of the same item, and different for anything that is not a retry:
 *
 *   execution id + node id + run index + item index + hash of the request body
 *
 * The body hash keeps a key from ever being reused for a different request (which the service may refuse as
 * idempotency_conflict), e.g. when an expression such as $now gives a new start time on the retry. A new execution
 * gets new keys, so running the workflow again deliberately books again.
 */
import { createHash } from 'crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** JSON with keys sorted at every level, so two equal bodies hash alike whatever their key order. */
export function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value)
			.filter(([, inner]) => inner !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
	}
	return JSON.stringify(value);
}

/** An RFC 9562 version-8 (application-defined) UUID from the first 128 bits of SHA-256 over `text`. */
export function uuidFromText(text: string): string {
	const bytes = createHash('sha256').update(text, 'utf8').digest().subarray(0, 16);
	bytes[6] = (bytes[6] & 0x0f) | 0x80; // version 8
	bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC variant
	const hex = bytes.toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface RetryIdentity {
	executionId: string;
	nodeId: string;
	runIndex: number;
	itemIndex: number;
}

export function deriveIdempotencyKey(identity: RetryIdentity, body: unknown): string {
	const bodyHash = createHash('sha256').update(canonicalJson(body), 'utf8').digest('hex');
	return uuidFromText(
		[
			'n8n-nodes-booking-service/create-booking/v1',
			identity.executionId,
			identity.nodeId,
			identity.runIndex,
			identity.itemIndex,
			bodyHash,
		].join('\n'),
	);
}

/**
 * A key the user set: a UUID is sent as given (lower-cased); any other text — an order number, say — is turned
 * into a UUID deterministically, because the contract asks for a UUID and equal text must still mean an equal key.
 */
export function idempotencyKeyFromUserValue(value: string): string {
	const trimmed = value.trim();
	return UUID_PATTERN.test(trimmed)
		? trimmed.toLowerCase()
		: uuidFromText(`n8n-nodes-booking-service/user-key/v1\n${trimmed}`);
}
