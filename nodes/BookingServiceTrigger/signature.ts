// Verifies `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>." + raw body>`. The MAC is over the raw
// bytes (re-serialised JSON differs); every v1 is tried (secret rotation), in constant time; exactly one `t` (two would
// pair a fresh t with a replayed signature); unknown schemes are ignored; a stale `t` bounds replay.
import { createHmac, timingSafeEqual } from 'crypto';

/** The contract says "about five minutes"; this is the tolerance in both directions. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;
/** Unix seconds as plain digits; twelve digits reach far beyond any real clock and keep the number exact. */
const UNIX_SECONDS = /^\d{1,12}$/;

export type SignatureFailure =
	| 'missing_header'
	/** A part without `=`, an empty key, or an empty value. */
	| 'malformed_header'
	| 'missing_timestamp'
	| 'duplicate_timestamp'
	| 'invalid_timestamp'
	| 'missing_signature'
	/** No `v1` value equals the expected MAC (including values that are not 64 hex characters). */
	| 'signature_mismatch'
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

/** Judged without any secret, so junk is refused before a credential is read or a secret unsealed. */
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

/** Node joins repeated headers with ", ", so a repeated header is judged as repeated parts by the same rules. */
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

/** Judged without any secret (the sender chose the timestamp): only a first filter, it proves nothing. */
export function hasFreshTimestamp(
	header: string | string[] | undefined,
	nowSeconds: number,
	toleranceSeconds: number = SIGNATURE_TOLERANCE_SECONDS,
): boolean {
	const parsed = readSignatureHeader(header);
	return typeof parsed !== 'string' && Math.abs(nowSeconds - Number(parsed.timestampText)) <= toleranceSeconds;
}
