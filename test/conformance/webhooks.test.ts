// Contract, POST /webhooks and DELETE /webhooks/{id}: https-only targets that resolve to public
// addresses (no traffic is sent anywhere: refused targets are refused before any connection),
// events 1–20, the 25-per-account limit, the secret shown once, the Location header, deletion
// taking effect at once.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../simulator/webhooks.ts';
import { call } from './support/client.ts';
import { useSimulator } from './support/fixtures.ts';
import { loadSchemas } from './support/schema.ts';
import type { SchemaChecker } from './support/schema.ts';

const sim = useSimulator();
let schemas: SchemaChecker;
beforeAll(async () => {
	schemas = await loadSchemas(sim());
});

/**
 * A public address. Subscriptions to it are made, but no booking changes in this file, so nothing
 * is ever sent there; afterEach checks that the delivery log stays empty.
 */
const PUBLIC_TARGET = 'https://8.8.8.8/hooks/booking';
afterEach(() => {
	expect(sim().control.deliveries()).toEqual([]);
	expect(sim().control.events()).toEqual([]);
});

async function subscribe(body: Record<string, unknown>) {
	return call(sim(), 'POST', '/webhooks', { json: body });
}

describe('POST /webhooks', () => {
	it('creates an active subscription with its secret and a Location header', async () => {
		const response = await subscribe({
			url: PUBLIC_TARGET,
			events: ['booking.created', 'booking.cancelled'],
			description: 'CRM sync',
		});
		expect(response.status).toBe(201);
		schemas.expect('WebhookSubscriptionCreated', response.body);
		expect(response.body).toMatchObject({
			url: PUBLIC_TARGET,
			events: ['booking.created', 'booking.cancelled'],
			description: 'CRM sync',
			status: 'active',
			createdVia: 'api',
			lastSuccessAt: null,
			consecutiveFailures: 0,
		});
		expect(response.body.secret).toMatch(/^whsec_[0-9a-f]{48}$/);
		expect(response.headers.location).toBe(`${sim().baseUrl}/webhooks/${response.body.id}`);
		const stored = sim()
			.control.webhooks()
			.find((subscription) => subscription.id === response.body.id)!;
		expect(stored.secret).toBe(response.body.secret);
		await call(sim(), 'DELETE', `/webhooks/${response.body.id}`);
	});

	it.each([
		['plain http', 'http://example.com/hook', 'must use https'],
		['loopback', 'https://127.0.0.1/hook', 'public address'],
		['loopback, other form', 'https://127.1.2.3:8443/hook', 'public address'],
		['private 10/8', 'https://10.0.0.1/hook', 'public address'],
		['private 172.16/12', 'https://172.20.1.1/hook', 'public address'],
		['private 192.168/16', 'https://192.168.1.10/hook', 'public address'],
		['link-local (cloud metadata)', 'https://169.254.169.254/latest', 'public address'],
		['carrier-grade NAT', 'https://100.64.0.1/hook', 'public address'],
		['documentation range', 'https://203.0.113.5/hook', 'public address'],
		['multicast', 'https://224.0.0.1/hook', 'public address'],
		['this network', 'https://0.0.0.0/hook', 'public address'],
		['IPv6 loopback', 'https://[::1]/hook', 'public address'],
		['IPv6 unique local', 'https://[fd12:3456::1]/hook', 'public address'],
		['IPv6 link-local', 'https://[fe80::1]/hook', 'public address'],
		['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook', 'public address'],
		['localhost by name', 'https://localhost/hook', 'public address'],
		['not a URI', 'hooks.example.com/x', 'absolute URI'],
		['another scheme', 'ftp://8.8.8.8/hook', 'must use https'],
	])('refuses a %s target with validation_failed on url', async (_name, url, reason) => {
		const before = sim().control.webhooks().length;
		const response = await subscribe({ url, events: ['*'] });
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details).toEqual([
			{ field: 'url', message: expect.stringContaining(reason) },
		]);
		expect(sim().control.webhooks()).toHaveLength(before);
	});

	it('accepts a url of 2000 characters and refuses 2001', async () => {
		const base = `${PUBLIC_TARGET}?pad=`;
		const ok = await subscribe({ url: base + 'p'.repeat(2000 - base.length), events: ['*'] });
		expect(ok.status).toBe(201);
		await call(sim(), 'DELETE', `/webhooks/${ok.body.id}`);
		const tooLong = await subscribe({ url: base + 'p'.repeat(2001 - base.length), events: ['*'] });
		expect(tooLong.status).toBe(400);
		expect(tooLong.body.error.details[0].field).toBe('url');
	});

	it.each([
		['1 event', ['booking.no_show'], 201],
		['20 events', Array.from({ length: 20 }, () => 'booking.created'), 201],
		['the wildcard', ['*'], 201],
		['no events', [], 400],
		['21 events', Array.from({ length: 21 }, () => 'booking.created'), 400],
		['an unknown event', ['booking.updated'], 400],
		['a non-string event', [42], 400],
	])('events with %s → %i', async (_name, events, status) => {
		const response = await subscribe({ url: PUBLIC_TARGET, events });
		expect(response.status).toBe(status);
		if (status === 201) await call(sim(), 'DELETE', `/webhooks/${response.body.id}`);
		else expect(response.body.error.details[0].field).toMatch(/^events/);
	});

	it('accepts a description of 200 characters and refuses 201', async () => {
		const ok = await subscribe({ url: PUBLIC_TARGET, events: ['*'], description: 'd'.repeat(200) });
		expect(ok.status).toBe(201);
		await call(sim(), 'DELETE', `/webhooks/${ok.body.id}`);
		const tooLong = await subscribe({
			url: PUBLIC_TARGET,
			events: ['*'],
			description: 'd'.repeat(201),
		});
		expect(tooLong.body.error.details).toEqual([
			{ field: 'description', message: expect.any(String) },
		]);
	});

	it('refuses missing url and events together, naming both', async () => {
		const response = await subscribe({});
		expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toEqual([
			'url',
			'events',
		]);
	});

	it('allows 25 subscriptions per account and refuses the 26th with bad_request (the simulator’s choice)', async () => {
		const created: string[] = [];
		for (let index = 0; index < 25; index += 1) {
			const response = await subscribe({ url: `${PUBLIC_TARGET}/${index}`, events: ['*'] });
			expect(response.status).toBe(201);
			created.push(response.body.id);
		}
		const extra = await subscribe({ url: `${PUBLIC_TARGET}/extra`, events: ['*'] });
		expect(extra.status).toBe(400);
		expect(extra.body.error.code).toBe('bad_request');
		expect(extra.body.error.message).toContain('25');
		expect((await call(sim(), 'DELETE', `/webhooks/${created[0]}`)).status).toBe(204);
		expect((await subscribe({ url: `${PUBLIC_TARGET}/again`, events: ['*'] })).status).toBe(201);
		sim().control.reset();
	});
});

describe('DELETE /webhooks/{id}', () => {
	it('deletes at once with 204 and no body; a second delete is 404', async () => {
		const created = await subscribe({ url: PUBLIC_TARGET, events: ['*'] });
		const deleted = await call(sim(), 'DELETE', `/webhooks/${created.body.id}`);
		expect(deleted.status).toBe(204);
		expect(deleted.body).toBeUndefined();
		expect(
			sim()
				.control.webhooks()
				.some((subscription) => subscription.id === created.body.id),
		).toBe(false);
		const again = await call(sim(), 'DELETE', `/webhooks/${created.body.id}`);
		expect(again.status).toBe(404);
		expect(again.body.error.code).toBe('not_found');
	});
});

describe('the local-use switch', () => {
	it('with it, http and loopback targets are accepted', async () => {
		sim().control.setInsecureWebhookTargets({ allowed: true });
		for (const url of [
			'http://127.0.0.1:9/hook',
			'http://localhost:9/hook',
			'https://[::1]:9/hook',
			'http://10.1.2.3/hook',
		]) {
			const response = await subscribe({ url, events: ['*'] });
			expect(response.status, url).toBe(201);
		}
		sim().control.reset();
		expect((await subscribe({ url: 'http://127.0.0.1:9/hook', events: ['*'] })).status).toBe(400);
	});
});

describe('public-address classification', () => {
	it.each([
		['8.8.8.8', true],
		['1.1.1.1', true],
		['2606:4700:4700::1111', true],
		['::ffff:8.8.8.8', true],
		['64:ff9b::808:808', true],
		['127.0.0.1', false],
		['10.255.255.255', false],
		['172.31.255.255', false],
		['172.32.0.1', true],
		['192.168.0.1', false],
		['100.64.0.0', false],
		['100.128.0.1', true],
		['169.254.0.1', false],
		['198.18.0.1', false],
		['192.0.2.1', false],
		['240.0.0.1', false],
		['255.255.255.255', false],
		['::', false],
		['::1', false],
		['fc00::1', false],
		['fe80::1%eth0', false],
		['ff02::1', false],
		['2001:db8::1', false],
		['::ffff:10.0.0.1', false],
		['::ffff:7f00:1', false],
		['64:ff9b::a00:1', false],
		['2002:7f00:1::', false],
		['not an address', false],
	])('%s → public: %s', (address, expected) => {
		expect(isPublicAddress(address)).toBe(expected);
	});
});
