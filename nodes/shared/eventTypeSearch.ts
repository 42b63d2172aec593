import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import type { EventType } from './booking';
import { listAllPages } from './paging';

/** Accounts have a handful of event types; this bounds the list should one have very many. */
const MAX_LISTED_EVENT_TYPES = 1000;

/** Active event types only (only those can be booked); the service has no search, so the filter runs here. */
export async function searchEventTypes(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const eventTypes = (await listAllPages.call(this, {
		path: '/event-types',
		qs: { active: 'true' },
		limit: MAX_LISTED_EVENT_TYPES,
		scope: 'event_types:read',
	})) as EventType[];
	const term = (filter ?? '').trim().toLowerCase();
	const results: INodeListSearchItems[] = eventTypes
		.filter((eventType) =>
			term === ''
				? true
				: [eventType.name, eventType.nameI18n?.en, eventType.nameI18n?.ja, eventType.slug].some(
						(text) => typeof text === 'string' && text.toLowerCase().includes(term),
					),
		)
		.map((eventType) => ({
			name: `${eventType.name} (${eventType.durationMinutes} min)`,
			value: eventType.id,
			url: typeof eventType.bookingUrl === 'string' ? eventType.bookingUrl : undefined,
		}));
	return { results };
}
