/** Readers for the shared entries of the operations' Options collections (see common.descriptions.ts). */
import { NAME_LANGUAGES } from '../helpers/resources';
import type { NameLanguage } from '../helpers/resources';
import type { ItemParameters } from '../helpers/validation';

/** Ten minutes: longer than any sane answer, short enough that a hung request does not hold the execution forever. */
const MAX_TIMEOUT_MS = 600_000;

export function readTimeoutMs(parameters: ItemParameters): number | undefined {
	return parameters.optionalInteger('options.timeout', 'Timeout', { min: 1, max: MAX_TIMEOUT_MS });
}

export function readNameLanguage(parameters: ItemParameters): NameLanguage {
	return parameters.oneOf('options.nameLanguage', 'Name Language', NAME_LANGUAGES, 'service');
}

export interface BookingOutput {
	nameLanguage: NameLanguage;
	simplify: boolean;
}

export function readBookingOutput(parameters: ItemParameters): BookingOutput {
	return {
		nameLanguage: readNameLanguage(parameters),
		simplify: parameters.optionalBoolean('simplify', 'Simplify') ?? false,
	};
}
