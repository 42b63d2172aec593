/**
 * Input checking in the contract's vocabulary. Every check records a `{ field, message }` problem
 * instead of throwing, so one validation_failed answer names every bad field at once (contract,
 * Errors: "details is an array naming each field").
 */
import { ApiError, validationFailed } from './errors.ts';
import type { FieldProblem } from './errors.ts';
import { REJECT_UNKNOWN_BODY_FIELDS } from './policy.ts';

/** Resource ids and path ids (contract, conventions 5). */
export const ID_PATTERN = /^[0-9a-f]{24}$/;

const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// Deliberately simple, like most services' "email format": one @, no spaces, a dot in the domain.
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

export class Problems {
	readonly list: FieldProblem[] = [];

	add(field: string, message: string): void {
		this.list.push({ field, message });
	}

	throwIfAny(): void {
		if (this.list.length > 0) throw validationFailed(this.list);
	}
}

/**
 * A UTC date-time ending in `Z`, as epoch milliseconds; undefined when malformed or not a real
 * calendar instant.
 */
export function parseUtcDateTime(text: string): number | undefined {
	const match = UTC_DATE_TIME.exec(text);
	if (!match) return undefined;
	const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
	const millis = match[7] === undefined ? 0 : Number(match[7].padEnd(3, '0').slice(0, 3));
	if (hour > 23 || minute > 59 || second > 59) return undefined;
	const epoch = Date.UTC(year, month - 1, day, hour, minute, second, millis);
	const check = new Date(epoch);
	if (
		check.getUTCFullYear() !== year ||
		check.getUTCMonth() !== month - 1 ||
		check.getUTCDate() !== day
	) {
		return undefined;
	}
	return epoch;
}

export interface CalendarDate {
	year: number;
	month: number;
	day: number;
}

/** A `YYYY-MM-DD` calendar date; undefined when malformed or not a real date. */
export function parseDate(text: string): CalendarDate | undefined {
	const match = DATE.exec(text);
	if (!match) return undefined;
	const [year, month, day] = match.slice(1, 4).map(Number);
	const check = new Date(Date.UTC(year, month - 1, day));
	if (
		check.getUTCFullYear() !== year ||
		check.getUTCMonth() !== month - 1 ||
		check.getUTCDate() !== day
	) {
		return undefined;
	}
	return { year, month, day };
}

export function isEmail(text: string): boolean {
	return EMAIL.test(text);
}

const CANONICAL_TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone'));

/**
 * An IANA time zone name. Canonical names and their IANA aliases (`Asia/Calcutta`, `UTC`) pass;
 * offsets such as `+09:00`, which Intl also accepts, are not IANA names and fail.
 */
export function isTimeZone(text: string): boolean {
	if (CANONICAL_TIME_ZONES.has(text)) return true;
	if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(text)) return false;
	try {
		new Intl.DateTimeFormat('en', { timeZone: text });
		return true;
	} catch {
		return false;
	}
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The body of a write: JSON only, and only with `Content-Type: application/json` (contract,
 * conventions 2: without it the body is not parsed and the call fails with validation_failed).
 */
export function parseJsonObjectBody(
	contentType: string | undefined,
	raw: Buffer,
): Record<string, unknown> {
	const mediaType = contentType?.split(';')[0].trim().toLowerCase();
	if (mediaType !== 'application/json') {
		throw validationFailed([
			{ field: 'body', message: 'must be sent with Content-Type: application/json' },
		]);
	}
	if (raw.length === 0)
		throw validationFailed([{ field: 'body', message: 'a JSON object is required' }]);
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		throw new ApiError('bad_request', 'The request body is not valid JSON.');
	}
	if (!isPlainObject(parsed))
		throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
	return parsed;
}

/**
 * Readers for one field of a JSON object; each returns undefined when the field is absent or
 * invalid.
 */
export class ObjectReader {
	readonly #problems: Problems;
	readonly #object: Record<string, unknown>;
	readonly #prefix: string;

	constructor(problems: Problems, object: Record<string, unknown>, prefix = '') {
		this.#problems = problems;
		this.#object = object;
		this.#prefix = prefix;
	}

	/** Records every field the operation does not define (see REJECT_UNKNOWN_BODY_FIELDS). */
	onlyFields(allowed: readonly string[]): void {
		if (!REJECT_UNKNOWN_BODY_FIELDS) return;
		for (const key of Object.keys(this.#object)) {
			if (!allowed.includes(key))
				this.#problems.add(this.#path(key), 'is not a field of this operation');
		}
	}

	string(
		key: string,
		rule: {
			required?: boolean;
			min?: number;
			max?: number;
			check?: (value: string) => string | undefined;
		},
	): string | undefined {
		const value = this.#present(key, rule.required);
		if (value === undefined) return undefined;
		if (typeof value !== 'string') return this.#fail(key, 'must be a string');
		const length = [...value].length;
		if (rule.min !== undefined && length < rule.min)
			return this.#fail(key, `must be at least ${rule.min} characters`);
		if (rule.max !== undefined && length > rule.max)
			return this.#fail(key, `must be at most ${rule.max} characters`);
		const problem = rule.check?.(value);
		if (problem !== undefined) return this.#fail(key, problem);
		return value;
	}

	integer(key: string, rule: { required?: boolean; min: number; max: number }): number | undefined {
		const value = this.#present(key, rule.required);
		if (value === undefined) return undefined;
		if (typeof value !== 'number' || !Number.isInteger(value))
			return this.#fail(key, 'must be an integer');
		if (value < rule.min || value > rule.max)
			return this.#fail(key, `must be between ${rule.min} and ${rule.max}`);
		return value;
	}

	boolean(key: string, rule: { required?: boolean }): boolean | undefined {
		const value = this.#present(key, rule.required);
		if (value === undefined) return undefined;
		if (typeof value !== 'boolean') return this.#fail(key, 'must be a boolean');
		return value;
	}

	object(key: string, rule: { required?: boolean }): ObjectReader | undefined {
		const value = this.#present(key, rule.required);
		if (value === undefined) return undefined;
		if (!isPlainObject(value)) return this.#fail(key, 'must be an object');
		return new ObjectReader(this.#problems, value, this.#path(key));
	}

	array(
		key: string,
		rule: { required?: boolean; min: number; max: number },
	): unknown[] | undefined {
		const value = this.#present(key, rule.required);
		if (value === undefined) return undefined;
		if (!Array.isArray(value)) return this.#fail(key, 'must be an array');
		if (value.length < rule.min || value.length > rule.max) {
			return this.#fail(key, `must have between ${rule.min} and ${rule.max} items`);
		}
		return value;
	}

	/**
	 * Records a problem on a field of this object from outside the readers (e.g. an item of an
	 * array).
	 */
	problem(key: string, message: string): void {
		this.#problems.add(this.#path(key), message);
	}

	#present(key: string, required = false): unknown {
		if (!Object.hasOwn(this.#object, key)) {
			if (required) this.#problems.add(this.#path(key), 'is required');
			return undefined;
		}
		return this.#object[key];
	}

	#fail(key: string, message: string): undefined {
		this.#problems.add(this.#path(key), message);
		return undefined;
	}

	#path(key: string): string {
		return this.#prefix === '' ? key : `${this.#prefix}.${key}`;
	}
}

/** Query parameters: each may appear once; values are strings. */
export class QueryReader {
	readonly #problems: Problems;
	readonly #params: URLSearchParams;

	constructor(problems: Problems, params: URLSearchParams) {
		this.#problems = problems;
		this.#params = params;
	}

	string(
		key: string,
		rule: { required?: boolean; check?: (value: string) => string | undefined } = {},
	): string | undefined {
		const values = this.#params.getAll(key);
		if (values.length === 0) {
			if (rule.required) this.#problems.add(key, 'is required');
			return undefined;
		}
		if (values.length > 1) {
			this.#problems.add(key, 'must be given once');
			return undefined;
		}
		const problem = rule.check?.(values[0]);
		if (problem !== undefined) {
			this.#problems.add(key, problem);
			return undefined;
		}
		return values[0];
	}

	/** `limit` as every list operation defines it: an integer from 1 to 100, default 50. */
	limit(): number {
		const text = this.string('limit', {
			check: (value) =>
				/^\d{1,3}$/.test(value) && Number(value) >= 1 && Number(value) <= 100
					? undefined
					: 'must be an integer from 1 to 100',
		});
		return text === undefined ? 50 : Number(text);
	}
}

export const checks = {
	id: (value: string) =>
		ID_PATTERN.test(value) ? undefined : 'must be 24 lowercase hexadecimal characters',
	email: (value: string) => (isEmail(value) ? undefined : 'must be an email address'),
	utcDateTime: (value: string) =>
		parseUtcDateTime(value) === undefined ? 'must be a UTC date-time ending in Z' : undefined,
	date: (value: string) =>
		parseDate(value) === undefined ? 'must be a date in the form YYYY-MM-DD' : undefined,
	timeZone: (value: string) => (isTimeZone(value) ? undefined : 'must be an IANA time zone name'),
	oneOf: (allowed: readonly string[]) => (value: string) =>
		allowed.includes(value) ? undefined : `must be one of ${allowed.join(', ')}`,
};
