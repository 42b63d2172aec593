import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { bookingStatusName } from '../../shared/booking';
import type { Booking } from '../../shared/booking';
import { bookingServiceApiRequest } from '../../shared/transport';
import { canonicalTimeZone, formatInZone, parseUtc } from '../../shared/time';
import { emailProblem } from '../helpers/valueRules';

export { searchEventTypes } from '../../shared/eventTypeSearch';

// n8n runs a list search in a throwaway workflow without the workflow's settings (dynamic-node-parameters.service in
// n8n 1.x and 2.x), so getTimezone() is the instance's default zone, not the workflow's. The list shows each start in the
// node's Time Zone option if it names one, else in the booking's host zone (the account's, as its app shows it), and
// names that zone on every entry: "2026-12-01 09:00 Tokyo".
function optionTimeZone(context: ILoadOptionsFunctions): string | undefined {
	const options = context.getNode().parameters.options as IDataObject | undefined;
	const chosen = options?.timeZone;
	return typeof chosen === 'string' ? canonicalTimeZone(chosen.trim()) : undefined;
}

/** "Tokyo", "New York": the place a zone is named after, short enough for the list's width ("Etc/GMT+5" stays whole). */
function zoneLabel(timeZone: string): string {
	return timeZone.startsWith('Etc/') ? timeZone : (timeZone.split('/').pop() ?? timeZone).replace(/_/g, ' ');
}

function startText(start: unknown, timeZone: string): string {
	const instant = typeof start === 'string' ? parseUtc(start) : Number.NaN;
	if (!Number.isFinite(instant)) return String(start);
	const local = formatInZone(instant, timeZone);
	return `${local.slice(0, 10)} ${local.slice(11, 16)} ${zoneLabel(timeZone)}`;
}

/** One page of the most recent bookings per list page the user scrolls to; the service's maximum page size. */
const BOOKINGS_PER_LIST_PAGE = 100;

// The service's cursor is the list's pagination token. It has no text search: an email goes to its `email` filter,
// any other text is matched here within each page.
export async function searchBookings(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const term = (filter ?? '').trim();
	const chosenZone = optionTimeZone(this);
	const qs: IDataObject = { sort: '-createdAt', limit: BOOKINGS_PER_LIST_PAGE };
	const isEmail = emailProblem(term) === undefined;
	if (isEmail) qs.email = term;
	if (paginationToken) qs.cursor = paginationToken;
	const page = (await bookingServiceApiRequest.call(this, {
		method: 'GET',
		path: '/bookings',
		qs,
		scope: 'bookings:read',
	})) as { items?: unknown; nextCursor?: unknown } | undefined;
	const bookings = (Array.isArray(page?.items) ? page.items : []) as Booking[];
	const needle = isEmail ? '' : term.toLowerCase();
	const results: INodeListSearchItems[] = bookings
		.filter(
			(booking) =>
				needle === '' ||
				[booking.booker?.name, booking.booker?.email, booking.eventType?.name, booking.id].some(
					(text) => typeof text === 'string' && text.toLowerCase().includes(needle),
				),
		)
		.map((booking) => ({
			name: [
				booking.booker?.name ?? '?',
				booking.eventType?.name ?? '?',
				startText(booking.start, chosenZone ?? canonicalTimeZone(String(booking.hostTimezone)) ?? 'UTC'),
				bookingStatusName(booking.status),
			].join(' · '),
			value: booking.id,
			url: typeof booking.manageUrl === 'string' ? booking.manageUrl : undefined,
		}));
	const next = typeof page?.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
	return { results, paginationToken: next };
}
