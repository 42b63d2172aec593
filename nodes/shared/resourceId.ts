/** The service's IDs (bookings, event types, webhook subscriptions): 24 lowercase hexadecimal characters. */
const RESOURCE_ID = '[0-9a-f]{24}';

export const RESOURCE_ID_PATTERN = new RegExp(`^${RESOURCE_ID}$`);

/** An ID as a path segment (`/bookings/<id>/cancel`): a request naming something that may be missing. */
export const RESOURCE_ID_IN_PATH = new RegExp(`/${RESOURCE_ID}(/|$)`);

export function isResourceId(value: unknown): value is string {
	return typeof value === 'string' && RESOURCE_ID_PATTERN.test(value);
}
