// The webhook signing secret: sealed for static data (which travels with exports and copies), and used to verify a
// delivery's `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + raw body>`.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'crypto';

/** The contract says "about five minutes"; this is the tolerance in both directions. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;
/** Unix seconds as plain digits; twelve digits reach far beyond any real clock and keep the number exact. */
const UNIX_SECONDS = /^\d{1,12}$/;

/** Short, secret-free reasons for n8n's log; the sender only ever gets the same short 401. */
export const SIGNATURE_FAILURE_MESSAGES = {
	missing_header: 'Missing Service-Signature header',
	malformed_header: 'Malformed Service-Signature header',
	missing_timestamp: 'Service-Signature has no timestamp (t=)',
	duplicate_timestamp: 'Service-Signature has more than one timestamp (t=)',
	invalid_timestamp: 'Service-Signature timestamp is not a number of seconds',
	missing_signature: 'Service-Signature has no v1 signature',
	signature_mismatch: 'Signature does not match the request body',
	timestamp_out_of_tolerance: 'Signature timestamp is outside the accepted window',
} as const;

export type SignatureFailure = keyof typeof SIGNATURE_FAILURE_MESSAGES;

export type SignatureHeader = { timestampText: string; signatures: string[] };
export type RawBody = Buffer | string;

/**
 * Judged without any secret, so junk is refused before a credential is read. Node joins a repeated header with ", ",
 * so repeated headers are read as repeated parts. Exactly one `t` (two would pair a fresh t with a replayed MAC);
 * every `v1` is kept (the service may sign with two secrets); unknown schemes are ignored.
 */
export function readSignatureHeader(header: string | string[] | undefined): SignatureHeader | SignatureFailure {
	const text = Array.isArray(header) ? header.join(',') : header;
	if (text === undefined || text.trim() === '') return 'missing_header';
	const timestamps: string[] = [];
	const signatures: string[] = [];
	for (const rawPart of text.split(',')) {
		const part = rawPart.trim();
		const separator = part.indexOf('=');
		const key = part.slice(0, separator).trim();
		const value = part.slice(separator + 1).trim();
		if (separator === -1 || key === '' || value === '') return 'malformed_header';
		if (key === 't') timestamps.push(value);
		else if (key === 'v1') signatures.push(value);
	}
	if (timestamps.length > 1) return 'duplicate_timestamp';
	if (timestamps.length === 0) return 'missing_timestamp';
	if (signatures.length === 0) return 'missing_signature';
	if (!UNIX_SECONDS.test(timestamps[0])) return 'invalid_timestamp';
	return { timestampText: timestamps[0], signatures };
}

export function isFresh(header: SignatureHeader, nowSeconds: number): boolean {
	return Math.abs(nowSeconds - Number(header.timestampText)) <= SIGNATURE_TOLERANCE_SECONDS;
}

/** The `v1` value the service sends for this body, timestamp and secret (hex). */
export function computeDeliverySignature(rawBody: RawBody, timestamp: number | string, secret: string): string {
	return createHmac('sha256', secret)
		.update(`${timestamp}.`, 'utf8')
		.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
		.digest('hex');
}

/** Over the raw bytes (re-serialised JSON differs), every candidate compared in constant time, then the age. */
export function verifyDeliverySignature(rawBody: RawBody, header: SignatureHeader, secret: string, nowSeconds: number) {
	// The MAC covers the timestamp exactly as sent, so "0123" and "123" are different messages.
	const expected = Buffer.from(computeDeliverySignature(rawBody, header.timestampText, secret), 'hex');
	let matched = false;
	for (const candidate of header.signatures) {
		// A value that is not 64 hex characters cannot match; skipping it reveals only what the sender already knows.
		if (HEX_SIGNATURE.test(candidate)) matched = timingSafeEqual(Buffer.from(candidate, 'hex'), expected) || matched;
	}
	if (!matched) return 'signature_mismatch';
	return isFresh(header, nowSeconds) ? undefined : 'timestamp_out_of_tolerance';
}

// Sealing: AES-256-GCM under an HKDF-SHA256 key from the API key (a long random token: a password hash would add
// seconds per delivery and no strength), bound to workflow and node so a copied value does not open. Format
// `v1.<salt>.<iv>.<ciphertext>.<tag>`, base64url. A new API key cannot open it: that is how a rotation is noticed.
const SEAL_FORMAT = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

// Where a sealed secret belongs, both parts in the key derivation and the authenticated data; not the instance, so a
// sealed value opens wherever the workflow and its key are.
export type SecretBinding = { workflowId: string; nodeId: string };

function bindingLabel({ workflowId, nodeId }: SecretBinding): Buffer {
	return Buffer.from(`n8n-nodes-booking-service/webhook-secret/${SEAL_FORMAT}/${workflowId}/${nodeId}`, 'utf8');
}

function sealingKey(apiKey: string, salt: Buffer, label: Buffer): Buffer {
	return Buffer.from(hkdfSync('sha256', Buffer.from(apiKey, 'utf8'), salt, label, 32));
}

export function sealSecret(secret: string, apiKey: string, binding: SecretBinding): string {
	const label = bindingLabel(binding);
	const salt = randomBytes(SALT_BYTES);
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', sealingKey(apiKey, salt, label), iv, { authTagLength: TAG_BYTES });
	cipher.setAAD(label);
	const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	const parts = [salt, iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url'));
	return [SEAL_FORMAT, ...parts].join('.');
}

/** Never throws: a foreign, altered or unreadable value (another key, workflow or node) gives undefined. */
export function openSecret(sealed: unknown, apiKey: string, binding: SecretBinding): string | undefined {
	if (typeof sealed !== 'string') return undefined;
	const parts = sealed.split('.');
	if (parts.length !== 5 || parts[0] !== SEAL_FORMAT) return undefined;
	const [salt, iv, ciphertext, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
	if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
	const label = bindingLabel(binding);
	try {
		const decipher = createDecipheriv('aes-256-gcm', sealingKey(apiKey, salt, label), iv, { authTagLength: TAG_BYTES });
		decipher.setAAD(label);
		decipher.setAuthTag(tag);
		return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
	} catch {
		return undefined; // GCM authentication failed: wrong key, wrong binding or tampered data
	}
}
