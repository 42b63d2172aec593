import { describe, expect, it } from 'vitest';
import { openSecret, sealSecret } from '../../nodes/BookingServiceTrigger/secretBox.ts';

const secret = 'whsec_4f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a';
const apiKey = 'bsk_live_2b6f0c1e9d8a7b6c5d4e3f2a1b0c9d8e';
const binding = { workflowId: 'wf_1', nodeId: '6f1f0c1e-1111-4c4c-9999-0123456789ab' };

describe('secretBox', () => {
	it('opens what it sealed', () => {
		expect(openSecret(sealSecret(secret, apiKey, binding), apiKey, binding)).toBe(secret);
	});

	it('never stores the secret or the key in the clear, and differs on every sealing', () => {
		const first = sealSecret(secret, apiKey, binding);
		const second = sealSecret(secret, apiKey, binding);
		expect(first).not.toBe(second);
		for (const sealed of [first, second]) {
			expect(sealed).toMatch(/^v1(\.[A-Za-z0-9_-]+){4}$/);
			expect(sealed).not.toContain(secret);
			expect(sealed).not.toContain(secret.slice(6, 20));
			expect(sealed).not.toContain(apiKey);
			expect(Buffer.from(sealed.split('.')[3], 'base64url').toString('utf8')).not.toContain('whsec_');
		}
	});

	it('does not open with another API key (credential changed)', () => {
		expect(openSecret(sealSecret(secret, apiKey, binding), `${apiKey}x`, binding)).toBeUndefined();
	});

	it('does not open for another workflow or node (copied static data)', () => {
		const sealed = sealSecret(secret, apiKey, binding);
		expect(openSecret(sealed, apiKey, { ...binding, workflowId: 'wf_2' })).toBeUndefined();
		expect(openSecret(sealed, apiKey, { ...binding, nodeId: 'other-node' })).toBeUndefined();
	});

	it('does not open a tampered value', () => {
		const sealed = sealSecret(secret, apiKey, binding);
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
			secret,
			'v1.a.b.c',
			'v2.a.b.c.d',
			'v1....',
			`v1.${'A'.repeat(22)}.x.y.z`,
		]) {
			expect(openSecret(value, apiKey, binding)).toBeUndefined();
		}
	});
});
