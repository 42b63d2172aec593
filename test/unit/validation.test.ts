import { describe, expect, it } from 'vitest';
import type { NodeOperationError } from 'n8n-workflow';

import { ItemParameters } from '../../nodes/BookingService/helpers/validation.ts';
import {
	characterCount,
	emailProblem,
	integerProblem,
	lengthProblem,
	resourceIdProblem,
	timeZoneProblem,
} from '../../nodes/BookingService/helpers/valueRules.ts';
import { fakeContext } from './fake-context.ts';

describe('characterCount', () => {
	it('counts what people see as characters', () => {
		expect(characterCount('abc')).toBe(3);
		expect(characterCount('日本語')).toBe(3);
		expect(characterCount('👋🏽')).toBe(2); // hand + skin tone: two code points, four UTF-16 units
		expect(characterCount('😀'.repeat(120))).toBe(120);
	});
});

describe('lengthProblem', () => {
	it('checks both ends, counting code points', () => {
		expect(lengthProblem('', { min: 1 })).toBe('must not be empty');
		expect(lengthProblem('x'.repeat(120), { max: 120 })).toBeUndefined();
		expect(lengthProblem('x'.repeat(121), { max: 120 })).toBe(
			'must be at most 120 characters (it has 121)',
		);
		expect(lengthProblem('😀'.repeat(120), { max: 120 })).toBeUndefined();
	});
});

describe('emailProblem', () => {
	it.each(['jane@example.com', 'j.doe+tag@mail.example.co.jp', 'x@a.b'])('accepts %s', (email) => {
		expect(emailProblem(email)).toBeUndefined();
	});

	it.each([
		'jane',
		'jane@',
		'@example.com',
		'jane@example',
		'ja ne@example.com',
		'jane@@example.com',
		'jane@example..com',
		'jane@.example.com',
	])('refuses %s', (email) => {
		expect(emailProblem(email)).toMatch(/email address/);
	});

	it('refuses more than 254 characters', () => {
		expect(emailProblem(`${'a'.repeat(250)}@x.io`)).toMatch(/at most 254/);
	});
});

describe('resourceIdProblem', () => {
	it('wants exactly 24 lowercase hex characters', () => {
		expect(resourceIdProblem('0123456789abcdef01234567')).toBeUndefined();
		expect(resourceIdProblem('0123456789ABCDEF01234567')).toMatch(/lowercase/);
		expect(resourceIdProblem('0123456789abcdef0123456')).toBeDefined();
		expect(resourceIdProblem('0123456789abcdef012345678')).toBeDefined();
		expect(resourceIdProblem('0123456789abcdef0123456g')).toBeDefined();
		expect(resourceIdProblem('../0123456789abcdef01234')).toBeDefined();
	});
});

describe('timeZoneProblem', () => {
	it.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta', 'Etc/GMT+9'])(
		'accepts %s',
		(zone) => {
			expect(timeZoneProblem(zone)).toBeUndefined();
		},
	);

	it.each(['+09:00', 'Mars/Olympus', '', 'Europe/', 'GMT+9:00'])('refuses %j', (zone) => {
		expect(timeZoneProblem(zone)).toMatch(/IANA/);
	});
});

describe('integerProblem', () => {
	it('wants a whole number in range', () => {
		expect(integerProblem(14, { min: 1, max: 90 })).toBeUndefined();
		expect(integerProblem(0, { min: 1, max: 90 })).toBe('must be between 1 and 90');
		expect(integerProblem(91, { min: 1, max: 90 })).toBe('must be between 1 and 90');
		expect(integerProblem(1.5, { min: 1, max: 90 })).toBe('must be a whole number');
	});
});

describe('ItemParameters', () => {
	const read = (parameters: Record<string, unknown>, timezone = 'UTC') =>
		new ItemParameters(
			fakeContext(() => ({}), { parameters: parameters as never, timezone }).context,
			2,
		);

	it('names the field and the item, and shows short values only', () => {
		expect(() => read({ email: 'nope' }).requiredEmail('email', 'Booker Email')).toThrow(
			'Booker Email must be an email address such as jane@example.com (got "nope") [item 2]',
		);
		expect(() =>
			read({ notes: 'x'.repeat(3000) }).optionalString('notes', 'Notes', { max: 2000 }),
		).toThrow('Notes must be at most 2000 characters (it has 3000) [item 2]');
	});

	it('treats empty and whitespace as absent, and trims', () => {
		expect(read({ phone: '   ' }).optionalString('phone', 'Phone')).toBeUndefined();
		expect(read({ name: '  Jane ' }).requiredString('name', 'Name')).toBe('Jane');
		expect(() => read({ name: '' }).requiredString('name', 'Name')).toThrow(
			'Name is required [item 2]',
		);
		expect(read({}).optionalString('additionalFields.phone', 'Phone')).toBeUndefined();
	});

	it('refuses objects where text is expected', () => {
		expect(() => read({ name: { first: 'Jane' } }).requiredString('name', 'Name')).toThrow(
			/must be text/,
		);
	});

	it('reads a resource locator in any mode, or a plain string', () => {
		const id = '0123456789abcdef01234567';
		expect(
			read({ eventType: { __rl: true, mode: 'list', value: id } }).requiredResourceLocatorId(
				'eventType',
				'Event Type',
			),
		).toBe(id);
		expect(
			read({ eventType: { __rl: true, mode: 'id', value: ` ${id} ` } }).requiredResourceLocatorId(
				'eventType',
				'Event Type',
			),
		).toBe(id);
		expect(read({ eventType: id }).requiredResourceLocatorId('eventType', 'Event Type')).toBe(id);
		expect(
			read({ eventType: { mode: 'list', value: '' } }).optionalResourceLocatorId(
				'eventType',
				'Event Type',
			),
		).toBeUndefined();
		expect(() =>
			read({ eventType: { mode: 'list', value: '' } }).requiredResourceLocatorId(
				'eventType',
				'Event Type',
			),
		).toThrow('Event Type is required [item 2]');
	});

	it('a malformed ID or email says what is wrong and what it must be; the next step for an AI agent travels beside it', () => {
		const caught = (action: () => unknown) => {
			try {
				action();
			} catch (error) {
				return error as NodeOperationError;
			}
			throw new Error('nothing was thrown');
		};
		const id = caught(() => read({ bookingId: { mode: 'id', value: 'booking-1' } }).requiredResourceLocatorId('bookingId', 'Booking'));
		expect(id.message).toBe(
			'Booking must be an ID of 24 lowercase hexadecimal characters (0-9, a-f), e.g. 65f1c0ffee0123456789abcd, not a name or slug (got "booking-1") [item 2]',
		);
		expect(id.description).toBe('Nothing was sent for input item 2: the node checks "Booking" before sending anything.');
		expect(id.context.agentAdvice).toBe('Nothing was sent; use an ID exactly as a tool returned it, never a made-up one.');
		const email = caught(() => read({ email: 'ada at example' }).requiredEmail('email', 'Booker Email'));
		expect(email.message).toBe('Booker Email must be an email address such as jane@example.com (got "ada at example") [item 2]');
		expect(email.context.agentAdvice).toBe('Nothing was sent; ask the customer for their email address again.');
	});

	it("converts date-times to UTC, reading wall-clock values in the workflow time zone, in the picker's form and the typed one", () => {
		const utc = (value: unknown, zone?: string) => read({ start: value }, zone).optionalUtcDateTime('start', 'Start');
		expect(utc('2026-03-02T10:00:00+01:00')).toBe('2026-03-02T09:00:00Z');
		// What n8n's date picker stores (and shows), and the same time typed with a space: the same instant.
		expect(utc('2026-03-02T10:00:00', 'Europe/Berlin')).toBe('2026-03-02T09:00:00Z');
		expect(utc('2026-03-02 10:00', 'Europe/Berlin')).toBe('2026-03-02T09:00:00Z');
		expect(utc(new Date('2026-03-02T09:00:00.250Z'))).toBe('2026-03-02T09:00:00.250Z');
		expect(() => utc('2026-03-02T25:00:00Z')).toThrow(
			"Start must be a date and time such as 2026-03-02T10:00:00 (the date picker's form, read in the workflow's time zone), 2026-03-02T09:00:00Z or 2026-03-02T10:00:00+01:00 (got \"2026-03-02T25:00:00Z\") [item 2]",
		);
	});

	it('reads numbers from expressions given as text, and refuses fractions and text', () => {
		expect(read({ days: '14' }).optionalInteger('days', 'Days', { min: 1, max: 90 })).toBe(14);
		expect(() =>
			read({ days: '1.5' }).optionalInteger('days', 'Days', { min: 1, max: 90 }),
		).toThrow('Days must be a whole number [item 2]');
		expect(() =>
			read({ days: 'two' }).optionalInteger('days', 'Days', { min: 1, max: 90 }),
		).toThrow(/must be a number/);
	});

	it('reads lists from multi-options, arrays or comma-separated text, without duplicates', () => {
		const allowed = ['a', 'b', 'c'] as const;
		expect(read({ list: ['a', 'b', 'a'] }).listOf('list', 'List', allowed)).toEqual(['a', 'b']);
		expect(read({ list: 'c, a' }).listOf('list', 'List', allowed)).toEqual(['c', 'a']);
		expect(read({}).listOf('list', 'List', allowed)).toEqual([]);
		expect(() => read({ list: ['a', 'z'] }).listOf('list', 'List', allowed)).toThrow(
			'List may only contain: a, b, c (got "z") [item 2]',
		);
	});

	it('reads booleans, also "true"/"false" from expressions', () => {
		expect(read({ flag: false }).optionalBoolean('flag', 'Flag')).toBe(false);
		expect(read({ flag: 'true' }).optionalBoolean('flag', 'Flag')).toBe(true);
		expect(read({}).optionalBoolean('flag', 'Flag')).toBeUndefined();
		expect(() => read({ flag: 'yes' }).optionalBoolean('flag', 'Flag')).toThrow(
			/must be true or false/,
		);
	});
});
