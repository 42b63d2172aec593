// Idempotency keys for POST /bookings: n8n's Retry On Fail resends in the same execution and run, so the key is
// execution id + node id + run index + item index + a hash of the body (never reused for a different request, e.g. a
// $now start, which the service may refuse as idempotency_conflict); a new execution books again.
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

/** A UUID is sent lower-cased; other text becomes one deterministically (the contract asks for a UUID). */
export function idempotencyKeyFromUserValue(value: string): string {
	const trimmed = value.trim();
	return UUID_PATTERN.test(trimmed)
		? trimmed.toLowerCase()
		: uuidFromText(`n8n-nodes-booking-service/user-key/v1\n${trimmed}`);
}
