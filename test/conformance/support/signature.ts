/**
 * The receiver's side of `Service-Signature`, written from the definitions (RFC 2104 HMAC over
 * SHA-256) rather than with node's createHmac, so the simulator's signing is checked by an
 * independent implementation.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const BLOCK_SIZE = 64;

function sha256(...parts: Buffer[]): Buffer {
	const hash = createHash('sha256');
	for (const part of parts) hash.update(part);
	return hash.digest();
}

export function hmacSha256(key: Buffer, message: Buffer): Buffer {
	const shortKey = key.length > BLOCK_SIZE ? sha256(key) : key;
	const paddedKey = Buffer.concat([shortKey, Buffer.alloc(BLOCK_SIZE - shortKey.length)]);
	const inner = Buffer.from(paddedKey.map((byte) => byte ^ 0x36));
	const outer = Buffer.from(paddedKey.map((byte) => byte ^ 0x5c));
	return sha256(outer, sha256(inner, message));
}

/** Parses `t=<unix>,v1=<hex>` and checks the MAC over `<t>.<raw body>` in constant time. */
export function verifySignature(
	secret: string,
	header: string,
	rawBody: Buffer,
): { valid: boolean; timestamp: number } {
	const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
	if (match === null) return { valid: false, timestamp: Number.NaN };
	const expected = hmacSha256(
		Buffer.from(secret, 'utf8'),
		Buffer.concat([Buffer.from(`${match[1]}.`), rawBody]),
	);
	return {
		valid: timingSafeEqual(expected, Buffer.from(match[2], 'hex')),
		timestamp: Number(match[1]),
	};
}
