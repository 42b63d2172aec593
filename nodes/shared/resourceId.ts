/** The service's IDs (bookings, event types, webhook subscriptions): 24 lowercase hexadecimal characters. */
const RESOURCE_ID = '[0-9a-f]{24}';

export const RESOURCE_ID_PATTERN = new RegExp(`^${RESOURCE_ID}$`);

/** An ID as a path segment (`/bookings/<id>/cancel`): a request naming something that may be missing. */
export const RESOURCE_ID_IN_PATH = new RegExp(`/${RESOURCE_ID}(/|$)`);

/** What an ID must be, said the same by the panel (By ID's check) and by the node's own check before sending. */
export const RESOURCE_ID_RULE =
	'must be an ID of 24 lowercase hexadecimal characters (0-9, a-f), e.g. 65f1c0ffee0123456789abcd';

/** Added where the field is a resource locator, whose From List searches by name. */
export const NOT_A_NAME = 'not a name or slug';

export function isResourceId(value: unknown): value is string {
	return typeof value === 'string' && RESOURCE_ID_PATTERN.test(value);
}
