import { describe, expect, it } from 'vitest';

import {
	canonicalJson,
	deriveIdempotencyKey,
	idempotencyKeyFromUserValue,
	uuidFromText,
} from '../../nodes/BookingService/helpers/idempotency.ts';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const identity = { executionId: '1042', nodeId: 'node-a', runIndex: 0, itemIndex: 0 };
const body = {
	eventTypeId: '0123456789abcdef01234567',
	start: '2026-03-02T09:00:00Z',
	booker: { name: 'Jane', email: 'j@x.io' },
};

describe('deriveIdempotencyKey', () => {
	it('is a version-8 UUID, the same for the same retry identity and body', () => {
		const key = deriveIdempotencyKey(identity, body);

		expect(key).toMatch(UUID_V8);
		expect(deriveIdempotencyKey({ ...identity }, structuredClone(body))).toBe(key);
	});

	it('does not depend on key order in the body', () => {
		const reordered = {
			booker: { email: 'j@x.io', name: 'Jane' },
			start: body.start,
			eventTypeId: body.eventTypeId,
		};
		expect(deriveIdempotencyKey(identity, reordered)).toBe(deriveIdempotencyKey(identity, body));
	});

	it.each([
		['another execution', { ...identity, executionId: '1043' }, body],
		['another node', { ...identity, nodeId: 'node-b' }, body],
		['another run of the node', { ...identity, runIndex: 1 }, body],
		['another item', { ...identity, itemIndex: 1 }, body],
		['another body', identity, { ...body, start: '2026-03-02T10:00:00Z' }],
	])('changes with %s', (_, otherIdentity, otherBody) => {
		expect(deriveIdempotencyKey(otherIdentity, otherBody)).not.toBe(
			deriveIdempotencyKey(identity, body),
		);
	});
});

describe('idempotencyKeyFromUserValue', () => {
	it('keeps a UUID (lower-cased) and maps any other text to a stable UUID', () => {
		expect(idempotencyKeyFromUserValue(' 0F8FAD5B-D9CB-469F-A165-70867728950E ')).toBe(
			'0f8fad5b-d9cb-469f-a165-70867728950e',
		);
		expect(idempotencyKeyFromUserValue('order-4711')).toMatch(UUID_V8);
		expect(idempotencyKeyFromUserValue('order-4711')).toBe(
			idempotencyKeyFromUserValue('order-4711'),
		);
		expect(idempotencyKeyFromUserValue('order-4712')).not.toBe(
			idempotencyKeyFromUserValue('order-4711'),
		);
	});
});

describe('canonicalJson and uuidFromText', () => {
	it('sorts keys at every level and drops undefined like JSON does', () => {
		expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: undefined } })).toBe(
			'{"a":{"d":[2,{"e":0,"f":1}]},"b":1}',
		);
	});

	it('gives a stable UUID per text', () => {
		expect(uuidFromText('x')).toBe(uuidFromText('x'));
		expect(uuidFromText('x')).toMatch(UUID_V8);
	});
});
