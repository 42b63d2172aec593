import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sealSecret } from '../../nodes/BookingServiceTrigger/secretBox.ts';
import { UNREADABLE_RETRY_MS, UnsealedSecretCache } from '../../nodes/BookingServiceTrigger/secretCache.ts';

const apiKey = 'bsk_live_2b6f0c1e9d8a7b6c5d4e3f2a1b0c9d8e';
const binding = { workflowId: 'wf_1', nodeId: '6f1f0c1e-1111-4c4c-9999-0123456789ab' };
const secret = 'whsec_4f9c2d1e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a';

describe('UnsealedSecretCache', () => {
	it('gives back a secret for the same workflow, node and sealed value', () => {
		const cache = new UnsealedSecretCache(10);
		const sealed = sealSecret(secret, apiKey, binding);
		expect(cache.get(binding, sealed)).toBeUndefined();
		cache.remember(binding, sealed, secret);
		expect(cache.get(binding, sealed)).toBe(secret);
		expect(cache.get({ ...binding }, `${sealed}`)).toBe(secret);
	});

	it('misses for a new subscription: a newly sealed value, even of the same secret', () => {
		const cache = new UnsealedSecretCache(10);
		const sealed = sealSecret(secret, apiKey, binding);
		cache.remember(binding, sealed, secret);
		expect(cache.get(binding, sealSecret('whsec_new', apiKey, binding))).toBeUndefined();
		expect(cache.get(binding, sealSecret(secret, apiKey, binding))).toBeUndefined();
	});

	it('misses for another workflow or node holding the same sealed value', () => {
		const cache = new UnsealedSecretCache(10);
		const sealed = sealSecret(secret, apiKey, binding);
		cache.remember(binding, sealed, secret);
		expect(cache.get({ ...binding, workflowId: 'wf_2' }, sealed)).toBeUndefined();
		expect(cache.get({ ...binding, nodeId: 'other-node' }, sealed)).toBeUndefined();
	});

	it('keeps the parts of the key apart', () => {
		const cache = new UnsealedSecretCache(10);
		cache.remember({ workflowId: 'wf', nodeId: 'a/b' }, 'v1.x', secret);
		expect(cache.get({ workflowId: 'wf/a', nodeId: 'b' }, 'v1.x')).toBeUndefined();
		expect(cache.get({ workflowId: 'wf', nodeId: 'a' }, 'b/v1.x')).toBeUndefined();
	});

	it('is bounded, forgetting the trigger that received a delivery least recently', () => {
		const cache = new UnsealedSecretCache(2);
		const bindingOf = (nodeId: string) => ({ ...binding, nodeId });
		cache.remember(bindingOf('a'), 'v1.a', 'secret-a');
		cache.remember(bindingOf('b'), 'v1.b', 'secret-b');
		expect(cache.get(bindingOf('a'), 'v1.a')).toBe('secret-a');
		cache.remember(bindingOf('c'), 'v1.c', 'secret-c');
		expect(cache.get(bindingOf('b'), 'v1.b')).toBeUndefined();
		expect(cache.get(bindingOf('a'), 'v1.a')).toBe('secret-a');
		expect(cache.get(bindingOf('c'), 'v1.c')).toBe('secret-c');
	});

	it('stays bounded however many triggers it has seen', () => {
		const cache = new UnsealedSecretCache(3);
		for (let index = 0; index < 50; index += 1) {
			cache.remember({ ...binding, nodeId: `node-${index}` }, `v1.${index}`, `secret-${index}`);
		}
		const kept = Array.from({ length: 50 }, (_, index) =>
			cache.get({ ...binding, nodeId: `node-${index}` }, `v1.${index}`),
		).filter((value) => value !== undefined);
		expect(kept).toEqual(['secret-47', 'secret-48', 'secret-49']);
	});

	it('does not show its secrets when logged or serialized', () => {
		const cache = new UnsealedSecretCache(10);
		cache.remember(binding, 'v1.sealed', secret);
		expect(JSON.stringify(cache)).not.toContain(secret);
		expect(String(cache)).not.toContain(secret);
		expect(inspect(cache, { showHidden: true, depth: 10 })).not.toContain(secret);
		expect(Object.keys(cache)).toEqual([]);
	});
});

describe('UnsealedSecretCache: sealed values that did not open', () => {
	it('are not tried again for a minute, then are', () => {
		const cache = new UnsealedSecretCache(10);
		const sealed = sealSecret(secret, apiKey, binding);
		cache.rememberUnreadable(binding, sealed, 1_000);
		expect(cache.isKnownUnreadable(binding, sealed, 1_000 + UNREADABLE_RETRY_MS - 1)).toBe(true);
		expect(cache.isKnownUnreadable({ ...binding, nodeId: 'other' }, sealed, 1_000)).toBe(false);
		expect(cache.isKnownUnreadable(binding, sealed, 1_000 + UNREADABLE_RETRY_MS)).toBe(false);
		expect(cache.size.unreadable).toBe(0); // an expired entry is dropped when asked about
	});

	it('stay bounded under a flood of distinct sealed values, like the secrets', () => {
		const cache = new UnsealedSecretCache(200);
		for (let index = 0; index < 50_000; index++) {
			cache.rememberUnreadable({ workflowId: `wf_${index}`, nodeId: 'n' }, `v1.${index}`, 0);
			cache.remember({ workflowId: `wf_${index}`, nodeId: 'n' }, `v1.${index}`, 'x');
		}
		expect(cache.size).toEqual({ secrets: 200, unreadable: 200 });
	});
});

