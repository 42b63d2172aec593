/** Readers for the shared entries of the operations' Options collections (see common.descriptions.ts). */
import { NAME_LANGUAGES } from '../../shared/booking';
import type { NameLanguage } from '../../shared/booking';
import type { BookingOutput } from '../helpers/bookingOutput';
import type { ItemParameters } from '../helpers/validation';
import { limitField } from './common.descriptions';

/** Ten minutes: longer than any sane answer, short enough that a hung request does not hold the execution forever. */
const MAX_TIMEOUT_MS = 600_000;

export function readTimeoutMs(parameters: ItemParameters): number | undefined {
	return parameters.optionalInteger('options.timeout', 'Timeout', { min: 1, max: MAX_TIMEOUT_MS });
}

/** How many items a list operation returns at most; undefined for Return All. */
export function readLimit(parameters: ItemParameters): number | undefined {
	if (parameters.optionalBoolean('returnAll', 'Return All') ?? false) return undefined;
	return (
		parameters.optionalInteger('limit', 'Limit', { min: 1, max: Number.MAX_SAFE_INTEGER }) ??
		(limitField.default as number)
	);
}

export function readNameLanguage(parameters: ItemParameters): NameLanguage {
	return parameters.oneOf('options.nameLanguage', 'Name Language', NAME_LANGUAGES, 'service');
}

export function readBookingOutput(parameters: ItemParameters): BookingOutput {
	return {
		nameLanguage: readNameLanguage(parameters),
		simplify: parameters.optionalBoolean('simplify', 'Simplify') ?? false,
		timeZone: parameters.dateTimeZone(),
	};
}
