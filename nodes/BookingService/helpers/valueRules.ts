// The contract's rules for single values, each answering what is wrong with a value in words that follow its parameter's
// label ("Email must be …"), or undefined; validation.ts applies them per item before anything is sent.
import { isResourceId, NOT_A_NAME, RESOURCE_ID_RULE } from '../../shared/resourceId';
import { canonicalTimeZone } from '../../shared/time';

// Deliberately simple, like the service's "email format": one @, no spaces, a dot-separated domain.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Lengths count characters as people do (code points), not UTF-16 units: "日本" is 2, an emoji is 1. */
export function characterCount(text: string): number {
	return [...text].length;
}

export function lengthProblem(
	text: string,
	limits: { min?: number; max?: number },
): string | undefined {
	const count = characterCount(text);
	if (limits.min !== undefined && count < limits.min) {
		return limits.min === 1 ? 'must not be empty' : `must be at least ${limits.min} characters`;
	}
	if (limits.max !== undefined && count > limits.max) {
		return `must be at most ${limits.max} characters (it has ${count})`;
	}
	return undefined;
}

export function emailProblem(text: string): string | undefined {
	if (!EMAIL_PATTERN.test(text)) return 'must be an email address such as jane@example.com';
	return lengthProblem(text, { max: 254 });
}

export function resourceIdProblem(text: string): string | undefined {
	return isResourceId(text) ? undefined : RESOURCE_ID_RULE;
}

/** A resource locator's value (from an expression: n8n refuses to run a static one the panel flagged). */
export function locatorIdProblem(text: string): string | undefined {
	return isResourceId(text) ? undefined : `${RESOURCE_ID_RULE}, ${NOT_A_NAME}`;
}

export function timeZoneProblem(text: string): string | undefined {
	return canonicalTimeZone(text) === undefined
		? 'must be an IANA time zone name such as Europe/Berlin or UTC'
		: undefined;
}

export function integerProblem(
	value: number,
	limits: { min: number; max: number },
): string | undefined {
	if (!Number.isInteger(value)) return 'must be a whole number';
	if (value < limits.min || value > limits.max)
		return `must be between ${limits.min} and ${limits.max}`;
	return undefined;
}
