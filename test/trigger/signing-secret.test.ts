// The signing secret: test vectors for the signature check (the expected MACs are computed here from scratch with
// node:crypto, never with the module under test, so a mistake in computeDeliverySignature cannot hide itself), and
// the sealing that keeps the secret out of static data in the clear.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
	computeDeliverySignature,
	openSecret,
	readSignatureHeader,
	sealSecret,
	SIGNATURE_TOLERANCE_SECONDS,
	verifyDeliverySignature as verifyParsed,
} from '../../nodes/BookingServiceTrigger/signingSecret.ts';

const secret = 'whsec_0123456789abcdef0123456789abcdef0123456789abcdef';
const now = 1_767_225_600; // 2026-01-01T00:00:00Z
const body = '{"id":"evt_1","type":"booking.created","data":{"booking":{"id":"b1","name":"Zoë"}}}';

function hmac(payload: string | Buffer, key = secret): string {
	return createHmac('sha256', key).update(payload).digest('hex');
}

function header(t: number | string, ...signatures: string[]): string {
	return [`t=${t}`, ...signatures.map((signature) => `v1=${signature}`)].join(',');
}

const good = hmac(`${now}.${body}`);

/** The header read (as webhook() does before any secret) and then checked: one verdict, as the node acts on it. */
function verifyDeliverySignature(rawBody: Buffer | string, signatureHeader: string | string[] | undefined, key: string, nowSeconds: number) {
	const parsed = readSignatureHeader(signatureHeader);
	if (typeof parsed === 'string') return { valid: false, reason: parsed };
	const reason = verifyParsed(rawBody, parsed, key, nowSeconds);
	return reason === undefined ? { valid: true, timestamp: Number(parsed.timestampText) } : { valid: false, reason };
}

describe('computeDeliverySignature', () => {
	it('is HMAC-SHA256 over "<t>." followed by the body bytes', () => {
		expect(computeDeliverySignature(body, now, secret)).toBe(good);
		expect(computeDeliverySignature(Buffer.from(body), String(now), secret)).toBe(good);
	});

	it('matches a fixed vector (RFC 4231-style check of the construction)', () => {
		expect(computeDeliverySignature('{}', 0, 'key')).toBe(createHmac('sha256', 'key').update('0.{}').digest('hex'));
	});
});

describe('verifyDeliverySignature accepts', () => {
	it('a genuine delivery as a string or as a Buffer', () => {
		expect(verifyDeliverySignature(body, header(now, good), secret, now)).toEqual({ valid: true, timestamp: now });
		expect(verifyDeliverySignature(Buffer.from(body), header(now, good), secret, now).valid).toBe(true);
	});

	it('non-ASCII bodies, signed over their UTF-8 bytes', () => {
		const japanese = '{"name":"予約 テスト"}';
		const signature = hmac(Buffer.concat([Buffer.from(`${now}.`), Buffer.from(japanese, 'utf8')]));
		expect(verifyDeliverySignature(Buffer.from(japanese, 'utf8'), header(now, signature), secret, now).valid).toBe(
			true,
		);
	});

	it('upper-case hex', () => {
		expect(verifyDeliverySignature(body, header(now, good.toUpperCase()), secret, now).valid).toBe(true);
	});

	it('the one valid v1 among several bad ones, wherever it stands', () => {
		const bad = hmac(`${now}.${body}`, 'another secret');
		expect(verifyDeliverySignature(body, header(now, bad, good), secret, now).valid).toBe(true);
		expect(verifyDeliverySignature(body, header(now, good, bad, 'zz'), secret, now).valid).toBe(true);
	});

	it('spaces around parts and unknown schemes', () => {
		expect(verifyDeliverySignature(body, ` t=${now} , v0=abc , v1=${good} `, secret, now).valid).toBe(true);
		expect(verifyDeliverySignature(body, `v2=${'0'.repeat(64)},t=${now},v1=${good}`, secret, now).valid).toBe(true);
	});

	it('timestamps exactly at the edges of the window, in both directions', () => {
		for (const t of [now - SIGNATURE_TOLERANCE_SECONDS, now + SIGNATURE_TOLERANCE_SECONDS]) {
			expect(verifyDeliverySignature(body, header(t, hmac(`${t}.${body}`)), secret, now).valid).toBe(true);
		}
	});

	it('an empty body when it is what was signed', () => {
		expect(verifyDeliverySignature('', header(now, hmac(`${now}.`)), secret, now).valid).toBe(true);
	});

	it('the header as an array (how some HTTP layers hand repeated headers over)', () => {
		expect(verifyDeliverySignature(body, [`t=${now}`, `v1=${good}`], secret, now).valid).toBe(true);
	});
});

describe('verifyDeliverySignature rejects', () => {
	const cases: Array<[string, Buffer | string, string | string[] | undefined, string]> = [
		['no header', body, undefined, 'missing_header'],
		['an empty header', body, '', 'missing_header'],
		['a blank header', body, '   ', 'missing_header'],
		['a part without "="', body, `t=${now},v1${good}`, 'malformed_header'],
		['an empty key', body, `t=${now},=${good}`, 'malformed_header'],
		['an empty value', body, `t=,v1=${good}`, 'malformed_header'],
		['a trailing comma', body, `${header(now, good)},`, 'malformed_header'],
		['no timestamp', body, `v1=${good}`, 'missing_timestamp'],
		['two timestamps', body, `t=${now},t=${now},v1=${good}`, 'duplicate_timestamp'],
		['a repeated header joined by Node', body, `${header(now, good)}, ${header(now + 1, good)}`, 'duplicate_timestamp'],
		['a non-numeric timestamp', body, header('abc', good), 'invalid_timestamp'],
		['a negative timestamp', body, header('-5', good), 'invalid_timestamp'],
		['a fractional timestamp', body, header(`${now}.5`, good), 'invalid_timestamp'],
		['a timestamp in milliseconds-and-more digits', body, header('1'.repeat(13), good), 'invalid_timestamp'],
		['no v1', body, `t=${now},v0=${good}`, 'missing_signature'],
		['a wrong secret', body, header(now, hmac(`${now}.${body}`, 'whsec_wrong')), 'signature_mismatch'],
		['a tampered body', body.replace('Zoë', 'Zoe'), header(now, good), 'signature_mismatch'],
		['a re-serialised body', JSON.stringify(JSON.parse(body), null, 1), header(now, good), 'signature_mismatch'],
		['a signature over the body without the timestamp', body, header(now, hmac(body)), 'signature_mismatch'],
		['a signature for another timestamp', body, header(now, hmac(`${now - 1}.${body}`)), 'signature_mismatch'],
		['a non-hex signature', body, header(now, 'g'.repeat(64)), 'signature_mismatch'],
		['a truncated signature', body, header(now, good.slice(0, 63)), 'signature_mismatch'],
		['a signature one byte too long', body, header(now, `${good}00`), 'signature_mismatch'],
		['a base64 signature', body, header(now, Buffer.from(good, 'hex').toString('base64')), 'signature_mismatch'],
		['only bad v1 values', body, header(now, '0'.repeat(64), 'xyz', good.replace(/.$/, '0')), 'signature_mismatch'],
		['a timestamp with a leading zero (signed without it)', body, header(`0${now}`, good), 'signature_mismatch'],
	];

	it.each(cases)('%s', (_name, rawBody, signatureHeader, reason) => {
		expect(verifyDeliverySignature(rawBody, signatureHeader, secret, now)).toEqual({ valid: false, reason });
	});

	it('a stale delivery even with a correct MAC', () => {
		const t = now - SIGNATURE_TOLERANCE_SECONDS - 1;
		expect(verifyDeliverySignature(body, header(t, hmac(`${t}.${body}`)), secret, now)).toEqual({
			valid: false,
			reason: 'timestamp_out_of_tolerance',
		});
	});

	it('a delivery from the future even with a correct MAC', () => {
		const t = now + SIGNATURE_TOLERANCE_SECONDS + 1;
		expect(verifyDeliverySignature(body, header(t, hmac(`${t}.${body}`)), secret, now)).toEqual({
			valid: false,
			reason: 'timestamp_out_of_tolerance',
		});
	});
});

const sealedSecretValue = 'whsec_4f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a';
const apiKey = 'bsk_live_2b6f0c1e9d8a7b6c5d4e3f2a1b0c9d8e';
const binding = { workflowId: 'wf_1', nodeId: '6f1f0c1e-1111-4c4c-9999-0123456789ab' };

describe('sealing the signing secret for static data', () => {
	it('opens what it sealed', () => {
		expect(openSecret(sealSecret(sealedSecretValue, apiKey, binding), apiKey, binding)).toBe(sealedSecretValue);
	});

	it('never stores the secret or the key in the clear, and differs on every sealing', () => {
		const first = sealSecret(sealedSecretValue, apiKey, binding);
		const second = sealSecret(sealedSecretValue, apiKey, binding);
		expect(first).not.toBe(second);
		for (const sealed of [first, second]) {
			expect(sealed).toMatch(/^v1(\.[A-Za-z0-9_-]+){4}$/);
			expect(sealed).not.toContain(sealedSecretValue);
			expect(sealed).not.toContain(sealedSecretValue.slice(6, 20));
			expect(sealed).not.toContain(apiKey);
			expect(Buffer.from(sealed.split('.')[3], 'base64url').toString('utf8')).not.toContain('whsec_');
		}
	});

	it('does not open with another API key (credential changed)', () => {
		expect(openSecret(sealSecret(sealedSecretValue, apiKey, binding), `${apiKey}x`, binding)).toBeUndefined();
	});

	it('does not open for another workflow or node (copied static data)', () => {
		const sealed = sealSecret(sealedSecretValue, apiKey, binding);
		expect(openSecret(sealed, apiKey, { ...binding, workflowId: 'wf_2' })).toBeUndefined();
		expect(openSecret(sealed, apiKey, { ...binding, nodeId: 'other-node' })).toBeUndefined();
	});

	it('does not open a tampered value', () => {
		const sealed = sealSecret(sealedSecretValue, apiKey, binding);
		const parts = sealed.split('.');
		for (let index = 1; index < parts.length; index += 1) {
			const bytes = Buffer.from(parts[index], 'base64url');
			bytes[0] ^= 0x01;
			const tampered = [...parts];
			tampered[index] = bytes.toString('base64url');
			expect(openSecret(tampered.join('.'), apiKey, binding)).toBeUndefined();
		}
	});

	it('treats anything that is not a sealed value as missing, without throwing', () => {
		for (const value of [
			undefined,
			null,
			42,
			{},
			'',
			sealedSecretValue,
			'v1.a.b.c',
			'v2.a.b.c.d',
			'v1....',
			`v1.${'A'.repeat(22)}.x.y.z`,
		]) {
			expect(openSecret(value, apiKey, binding)).toBeUndefined();
		}
	});
});
