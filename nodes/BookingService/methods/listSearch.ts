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
import { emailProblem } from '../helpers/validation';

export { searchEventTypes } from '../../shared/eventTypeSearch';

// In the editor n8n gives a list search no workflow settings, so getTimezone() is the instance's default zone rather
// than the workflow's; each entry shows its offset so the time cannot be misread.
function listTimeZone(context: ILoadOptionsFunctions): string {
	const options = context.getNode().parameters.options as IDataObject | undefined;
	const chosen = options?.timeZone;
	const named = typeof chosen === 'string' ? canonicalTimeZone(chosen.trim()) : undefined;
	return named ?? canonicalTimeZone(context.getTimezone()) ?? 'UTC';
}

/** An offset is shorter than a zone name, so the status after it still fits the list's width. */
function startText(start: unknown, timeZone: string): string {
	const instant = typeof start === 'string' ? parseUtc(start) : Number.NaN;
	if (!Number.isFinite(instant)) return String(start);
	const local = formatInZone(instant, timeZone);
	const [, sign, hours, minutes] = /([+-])(\d\d):(\d\d)$/.exec(local) ?? [];
	const offset =
		sign === undefined || (hours === '00' && minutes === '00')
			? 'UTC'
			: `UTC${sign}${Number(hours)}${minutes === '00' ? '' : `:${minutes}`}`;
	return `${local.slice(0, 10)} ${local.slice(11, 16)} ${offset}`;
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
	const timeZone = listTimeZone(this);
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
				startText(booking.start, timeZone),
				bookingStatusName(booking.status),
			].join(' · '),
			value: booking.id,
			url: typeof booking.manageUrl === 'string' ? booking.manageUrl : undefined,
		}));
	const next = typeof page?.nextCursor === 'string' && page.nextCursor !== '' ? page.nextCursor : undefined;
	return { results, paginationToken: next };
}
