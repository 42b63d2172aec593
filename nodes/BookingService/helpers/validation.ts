// Every limit the contract states, checked before anything is sent, so bad input costs no request and the error names
// the parameter (by its label) and the item.
import type { IExecuteFunctions, INodeParameterResourceLocator } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { adviseAgent } from '../../shared/agentAdvice';
import { canonicalTimeZone, formatUtc, parseCalendarDate, parseDateTime } from '../../shared/time';
import type { DayNumber } from '../../shared/time';
import {
	characterCount,
	emailProblem,
	integerProblem,
	lengthProblem,
	locatorIdProblem,
	resourceIdProblem,
	timeZoneProblem,
} from './valueRules';

/** An AI agent that made an ID up reads only the message: this joins it there (agentAdvice.ts). */
const ID_ADVICE = 'Nothing was sent; use an ID exactly as a tool returned it, never a made-up one.';
const EMAIL_ADVICE = 'Nothing was sent; ask the customer for their email address again.';

/** The picker's own form first (it stores 2026-03-02T10:00:00 and shows any other form as an empty field). */
export const DATE_TIME_EXAMPLES =
	"2026-03-02T10:00:00 (the date picker's form, read in the workflow's time zone), 2026-03-02T09:00:00Z or 2026-03-02T10:00:00+01:00";

/** Where every operation that reads or shows dates keeps its Time Zone option. */
export const TIME_ZONE_OPTION = 'options.timeZone';

/** Reads and checks one item's parameters. Dotted names reach into collections, e.g. `additionalFields.phone`. */
export class ItemParameters {
	private readonly context: IExecuteFunctions;

	readonly itemIndex: number;

	private zone: string | undefined;

	constructor(context: IExecuteFunctions, itemIndex: number) {
		this.context = context;
		this.itemIndex = itemIndex;
	}

	/** "<Label> <problem> (got "…") [item n]": the problem says what the value must be. Never echoes long values. */
	invalid(label: string, problem: string, value?: unknown, agentAdvice?: string): NodeOperationError {
		const shown =
			typeof value === 'string' && value !== '' && characterCount(value) <= 60
				? ` (got "${value}")`
				: '';
		const error = new NodeOperationError(
			this.context.getNode(),
			`${label} ${problem}${shown} [item ${this.itemIndex}]`,
			{
				itemIndex: this.itemIndex,
				description: `Nothing was sent for input item ${this.itemIndex}: the node checks "${label}" before sending anything.`,
			},
		);
		return adviseAgent(error, agentAdvice ?? 'Nothing was sent; correct this value and call the tool again.');
	}

	/** The parameter's value; `null` when it is not set (n8n throws on a missing parameter without a fallback). */
	raw(name: string, fallback: unknown = null): unknown {
		return this.context.getNodeParameter(name, this.itemIndex, fallback);
	}

	/** A string parameter, trimmed; empty means absent. Non-strings from expressions (numbers) are converted. */
	optionalString(name: string, label: string, limits: { max?: number } = {}): string | undefined {
		const value = this.raw(name, '');
		if (value === undefined || value === null) return undefined;
		if (typeof value === 'object') throw this.invalid(label, 'must be text, not an object or list');
		const text = String(value).trim();
		if (text === '') return undefined;
		const problem = lengthProblem(text, limits);
		if (problem) throw this.invalid(label, problem);
		return text;
	}

	requiredString(name: string, label: string, limits: { max?: number } = {}): string {
		return this.required(this.optionalString(name, label, limits), label);
	}

	optionalEmail(name: string, label: string): string | undefined {
		return this.checked(this.optionalString(name, label), label, emailProblem, EMAIL_ADVICE);
	}

	requiredEmail(name: string, label: string): string {
		return this.required(this.optionalEmail(name, label), label);
	}

	requiredResourceId(name: string, label: string): string {
		return this.required(
			this.checked(this.optionalString(name, label), label, resourceIdProblem, ID_ADVICE),
			label,
		);
	}

	optionalResourceLocatorId(name: string, label: string): string | undefined {
		const locator = this.raw(name, { mode: 'list', value: '' }) as
			| INodeParameterResourceLocator
			| string;
		const value = typeof locator === 'object' && locator !== null ? locator.value : locator;
		const text = value === undefined || value === null ? '' : String(value).trim();
		return this.checked(text === '' ? undefined : text, label, locatorIdProblem, ID_ADVICE);
	}

	requiredResourceLocatorId(name: string, label: string): string {
		return this.required(this.optionalResourceLocatorId(name, label), label);
	}

	/** An IANA zone name, in the canonical spelling the service expects ("europe/berlin" → "Europe/Berlin"). */
	optionalTimeZone(name: string, label: string): string | undefined {
		const text = this.checked(this.optionalString(name, label), label, timeZoneProblem);
		return text === undefined ? undefined : canonicalTimeZone(text);
	}

	requiredTimeZone(name: string, label: string): string {
		return this.required(this.optionalTimeZone(name, label), label);
	}

	optionalInteger(
		name: string,
		label: string,
		limits: { min: number; max: number },
	): number | undefined {
		const value = this.raw(name);
		if (value === undefined || value === null || value === '') return undefined;
		const number = typeof value === 'number' ? value : Number(String(value).trim());
		if (Number.isNaN(number)) throw this.invalid(label, 'must be a number', value);
		const problem = integerProblem(number, limits);
		if (problem) throw this.invalid(label, problem);
		return number;
	}

	optionalBoolean(name: string, label: string): boolean | undefined {
		const value = this.raw(name);
		if (value === undefined || value === null || value === '') return undefined;
		if (typeof value === 'boolean') return value;
		if (value === 'true' || value === 'false') return value === 'true';
		throw this.invalid(label, 'must be true or false', value);
	}

	oneOf<T extends string>(name: string, label: string, allowed: readonly T[], fallback: T): T {
		const value = this.raw(name, fallback);
		if (typeof value === 'string' && (allowed as readonly string[]).includes(value))
			return value as T;
		throw this.invalid(label, `must be one of: ${allowed.join(', ')}`, value);
	}

	listOf<T extends string>(name: string, label: string, allowed: readonly T[]): T[] {
		const value = this.raw(name, []);
		const entries = Array.isArray(value)
			? value
			: typeof value === 'string' && value.trim() !== ''
				? value.split(',')
				: [];
		const chosen: T[] = [];
		for (const entry of entries) {
			const text = String(entry).trim();
			if (!(allowed as readonly string[]).includes(text)) {
				throw this.invalid(label, `may only contain: ${allowed.join(', ')}`, text);
			}
			if (!chosen.includes(text as T)) chosen.push(text as T);
		}
		return chosen;
	}

	// The Time Zone option, else the workflow's zone: n8n's date picker writes values without an offset, meant in the
	// zone the panel's notice names (this one).
	dateTimeZone(): string {
		this.zone ??=
			this.optionalTimeZone(TIME_ZONE_OPTION, 'Time Zone') ??
			canonicalTimeZone(this.context.getTimezone()) ??
			'UTC';
		return this.zone;
	}

	/** A date-time as epoch milliseconds; values without an offset are read in dateTimeZone(). */
	optionalInstant(name: string, label: string): number | undefined {
		const value = this.raw(name, '');
		if (value === undefined || value === null || value === '') return undefined;
		const instant = parseDateTime(value, this.dateTimeZone());
		if (instant === undefined) {
			throw this.invalid(label, `must be a date and time such as ${DATE_TIME_EXAMPLES}`, value);
		}
		return instant;
	}

	requiredInstant(name: string, label: string): number {
		return this.required(this.optionalInstant(name, label), label);
	}

	/** A date-time converted to the service's UTC form (`…Z`). */
	optionalUtcDateTime(name: string, label: string): string | undefined {
		const instant = this.optionalInstant(name, label);
		return instant === undefined ? undefined : formatUtc(instant);
	}

	/** A calendar date; a date-time value (an expression such as {{ $today }}) gives its date in dateTimeZone(). */
	requiredCalendarDate(name: string, label: string): DayNumber {
		const value = this.raw(name, '');
		if (value === undefined || value === null || value === '')
			throw this.invalid(label, 'is required');
		const day = parseCalendarDate(value, this.dateTimeZone());
		if (day === undefined) throw this.invalid(label, 'must be a date such as 2026-03-02', value);
		return day;
	}

	/** The text unchanged, or undefined when absent; throws with `problemOf`'s sentence when it is not acceptable. */
	private checked(
		text: string | undefined,
		label: string,
		problemOf: (text: string) => string | undefined,
		agentAdvice?: string,
	): string | undefined {
		if (text === undefined) return undefined;
		const problem = problemOf(text);
		if (problem) throw this.invalid(label, problem, text, agentAdvice);
		return text;
	}

	private required<T>(value: T | undefined, label: string): T {
		if (value === undefined) throw this.invalid(label, 'is required');
		return value;
	}
}
