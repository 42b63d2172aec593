// A booking's Start, refused before sending when it has passed: the service would answer "no longer free", which sends
// the reader looking for a taken slot when the real mistake is the date (a wrong year, a zone misread).
import type { IExecuteFunctions } from 'n8n-workflow';

import { formatInZone, formatUtc } from '../../shared/time';
import type { ItemParameters } from './validation';

/**
 * Clocks differ: a start up to this long ago is sent, and the service decides. Five minutes is the clock difference
 * the service itself tolerates (the age of a webhook signature).
 */
export const PAST_START_TOLERANCE_MS = 5 * 60_000;

const PAST_START_ADVICE =
	"Nothing was sent. Check today's date in your instructions, then offer the customer times from the available slots (all in the future).";

/**
 * n8n's clock as expressions see it (`$now`): the time a user's `{{ $now }}` shows in the same run (and the one the
 * engine tests move with the simulator's clock).
 */
function nowOf(context: IExecuteFunctions, itemIndex: number): number {
	const now = context.getWorkflowDataProxy(itemIndex).$now as { toMillis?: () => number } | undefined;
	return typeof now?.toMillis === 'function' ? now.toMillis() : Date.now();
}

function agoText(ms: number): string {
	const minutes = Math.round(ms / 60_000);
	if (minutes < 120) return `${minutes} minutes ago`;
	const hours = Math.round(minutes / 60);
	return hours < 48 ? `${hours} hours ago` : `${Math.round(hours / 24)} days ago`;
}

/** The start in the service's UTC form; throws, naming the field, the item and how it was read, if it has passed. */
export function requiredFutureStart(
	context: IExecuteFunctions,
	parameters: ItemParameters,
	name: string,
	label: string,
): string {
	const instant = parameters.requiredInstant(name, label);
	const age = nowOf(context, parameters.itemIndex) - instant;
	if (age > PAST_START_TOLERANCE_MS) {
		const zone = parameters.dateTimeZone();
		const value = shownValue(parameters.raw(name, ''));
		const written = typeof value === 'string' && value.length <= 60 ? `"${value}" ` : '';
		throw parameters.invalid(
			label,
			`is in the past: ${written}was read as ${formatInZone(instant, zone)} in ${zone}, ${agoText(age)}. Give a start that has not passed, e.g. a slot from Get Available Slots`,
			undefined,
			PAST_START_ADVICE,
		);
	}
	return formatUtc(instant);
}

/** The value as the user wrote it (an expression's result may be a Luxon DateTime or a Date). */
function shownValue(value: unknown): unknown {
	if (value instanceof Date) return value.toISOString();
	const iso = (value as { toISO?: unknown } | null)?.toISO;
	return typeof iso === 'function' ? (iso.call(value) as unknown) : value;
}
