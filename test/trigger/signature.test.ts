// Test vectors for verifyDeliverySignature. The expected MACs are computed here from scratch with node:crypto, never
// with the module under test, so a mistake in computeDeliverySignature cannot hide itself.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
	computeDeliverySignature,
	SIGNATURE_TOLERANCE_SECONDS,
	verifyDeliverySignature,
} from '../../nodes/BookingServiceTrigger/signature.ts';

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

	it('honours a custom tolerance', () => {
		const t = now - 10;
		expect(verifyDeliverySignature(body, header(t, hmac(`${t}.${body}`)), secret, now, 5).valid).toBe(false);
		expect(verifyDeliverySignature(body, header(t, hmac(`${t}.${body}`)), secret, now, 10).valid).toBe(true);
	});
});
