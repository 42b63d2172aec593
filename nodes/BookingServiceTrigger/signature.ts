/**
 * Verification of the `Service-Signature` header the Booking Service puts on every webhook delivery:
 *
 *   Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + raw body, keyed with the subscription secret>
 *
 * Pure and synchronous so it can be tested with fixed vectors. The rules, and why:
 * - The MAC is computed over the raw body bytes as received. Re-serialising parsed JSON changes key order, spacing or
 *   number formatting and would reject genuine deliveries (or, worse, accept a body that differs from what was signed).
 * - Every `v1` value is tried, so the service can sign with an old and a new secret side by side while rotating; every
 *   candidate is compared in constant time and all of them are always compared, so timing says nothing about which
 *   (if any) was close.
 * - Exactly one `t` is allowed. Two timestamps make it ambiguous which one was signed; an attacker could pair a fresh
 *   `t` with an old, replayed signature and hope the checker reads the other one.
 * - Unknown schemes (`v0=…`, a future `v2=…`) are ignored, not rejected, so a service upgrade cannot break
 *   receivers.
 * - A timestamp too far in the past or the future is refused even with a valid MAC: that bounds how long a captured
 *   delivery can be replayed (the duplicate store covers the window itself).
 */
import { createHmac, timingSafeEqual } from 'crypto';

/** The contract says "about five minutes"; this is the tolerance in both directions. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;
/** Unix seconds as plain digits; twelve digits reach far beyond any real clock and keep the number exact. */
const UNIX_SECONDS = /^\d{1,12}$/;

export type SignatureFailure =
	/** No header, or only whitespace. */
	| 'missing_header'
	/** A part without `=`, an empty key, or an empty value. */
	| 'malformed_header'
	/** No `t=` part. */
	| 'missing_timestamp'
	/** More than one `t=` part. */
	| 'duplicate_timestamp'
	/** `t=` is not a whole number of seconds. */
	| 'invalid_timestamp'
	/** No `v1=` part. */
	| 'missing_signature'
	/** No `v1` value equals the expected MAC (including values that are not 64 hex characters). */
	| 'signature_mismatch'
	/** The MAC is right but `t` is outside the tolerance window. */
	| 'timestamp_out_of_tolerance';

export type SignatureVerdict = { valid: true; timestamp: number } | { valid: false; reason: SignatureFailure };

/** Short, secret-free explanations for n8n's log; the sender only ever gets the same short 401. */
export const SIGNATURE_FAILURE_MESSAGES: Record<SignatureFailure, string> = {
	missing_header: 'Missing Service-Signature header',
	malformed_header: 'Malformed Service-Signature header',
	missing_timestamp: 'Service-Signature has no timestamp (t=)',
	duplicate_timestamp: 'Service-Signature has more than one timestamp (t=)',
	invalid_timestamp: 'Service-Signature timestamp is not a number of seconds',
	missing_signature: 'Service-Signature has no v1 signature',
	signature_mismatch: 'Signature does not match the request body',
	timestamp_out_of_tolerance: 'Signature timestamp is outside the accepted window',
};

interface ParsedHeader {
	timestampText: string;
	signatures: string[];
}

function parseSignatureHeader(header: string): ParsedHeader | SignatureFailure {
	let timestampText: string | undefined;
	let timestampCount = 0;
	const signatures: string[] = [];
	for (const rawPart of header.split(',')) {
		const part = rawPart.trim();
		const separator = part.indexOf('=');
		if (separator === -1) return 'malformed_header';
		const key = part.slice(0, separator).trim();
		const value = part.slice(separator + 1).trim();
		if (key === '' || value === '') return 'malformed_header';
		if (key === 't') {
			timestampCount += 1;
			timestampText = value;
		} else if (key === 'v1') {
			signatures.push(value);
		}
	}
	if (timestampCount > 1) return 'duplicate_timestamp';
	if (timestampText === undefined) return 'missing_timestamp';
	if (signatures.length === 0) return 'missing_signature';
	return { timestampText, signatures };
}

function readSignatureHeader(header: string | string[] | undefined): ParsedHeader | SignatureFailure {
	const headerText = Array.isArray(header) ? header.join(',') : header;
	if (headerText === undefined || headerText.trim() === '') return 'missing_header';
	const parsed = parseSignatureHeader(headerText);
	if (typeof parsed === 'string') return parsed;
	if (!UNIX_SECONDS.test(parsed.timestampText)) return 'invalid_timestamp';
	return parsed;
}

/**
 * Why this header cannot carry a valid signature, judged without any secret, or undefined when it is well-formed.
 * Lets the receiver refuse junk before it reads a credential or unseals a secret.
 */
export function signatureHeaderProblem(header: string | string[] | undefined): SignatureFailure | undefined {
	const parsed = readSignatureHeader(header);
	return typeof parsed === 'string' ? parsed : undefined;
}

/** The `v1` value the service sends for this body, timestamp and secret (hex). */
export function computeDeliverySignature(rawBody: Buffer | string, timestamp: number | string, secret: string): string {
	return createHmac('sha256', secret)
		.update(`${timestamp}.`, 'utf8')
		.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
		.digest('hex');
}

/**
 * Checks one delivery. `header` is the value of `Service-Signature` as the HTTP layer hands it over (Node joins
 * repeated headers with ", ", so a repeated header shows up as repeated parts and is judged by the same rules).
 */
export function verifyDeliverySignature(
	rawBody: Buffer | string,
	header: string | string[] | undefined,
	secret: string,
	nowSeconds: number,
	toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): SignatureVerdict {
	const parsed = readSignatureHeader(header);
	if (typeof parsed === 'string') return { valid: false, reason: parsed };

	// The MAC covers the timestamp exactly as sent, so "0123" and "123" are different messages.
	const expected = Buffer.from(computeDeliverySignature(rawBody, parsed.timestampText, secret), 'hex');
	let matched = false;
	for (const candidate of parsed.signatures) {
		// A value that is not 64 hex characters cannot match; skipping it only reveals what the sender already knows.
		if (!HEX_SIGNATURE.test(candidate)) continue;
		// No early exit: every well-formed candidate is compared, in constant time.
		matched = timingSafeEqual(Buffer.from(candidate, 'hex'), expected) || matched;
	}
	if (!matched) return { valid: false, reason: 'signature_mismatch' };

	const timestamp = Number(parsed.timestampText);
	if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
		return { valid: false, reason: 'timestamp_out_of_tolerance' };
	}
	return { valid: true, timestamp };
}

/**
 * Whether a well-formed header's timestamp is within tolerance, judged without any secret. Only a first filter for
 * requests whose signature cannot be checked (the sender chose the timestamp); it proves nothing.
 */
export function hasFreshTimestamp(
	header: string | string[] | undefined,
	nowSeconds: number,
	toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
	const parsed = readSignatureHeader(header);
	return typeof parsed !== 'string' && Math.abs(nowSeconds - Number(parsed.timestampText)) <= toleranceSeconds;
}
