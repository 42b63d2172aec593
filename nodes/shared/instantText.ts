// The service's instants read and written without Date.parse's general grammar or a Date per field: Return All reads
// two per booking and writes them again as local times (20,000 each for 10,000 bookings).

const DAY_MS = 86_400_000;
const ZERO = 48;

function digitsAt(text: string, at: number, length: number): number {
	let value = 0;
	for (let index = at; index < at + length; index++) {
		const digit = text.charCodeAt(index) - ZERO;
		if (digit < 0 || digit > 9) return -1;
		value = value * 10 + digit;
	}
	return value;
}

/** Any other text, or a field outside plain ranges (day 29–31, a year before 1000), goes to Date.parse itself. */
export function parseUtc(text: string): number {
	const length = typeof text === 'string' ? text.length : 0;
	if (
		(length === 20 || (length === 24 && text[19] === '.')) &&
		text[4] === '-' &&
		text[7] === '-' &&
		text[10] === 'T' &&
		text[13] === ':' &&
		text[16] === ':' &&
		text[length - 1] === 'Z'
	) {
		const year = digitsAt(text, 0, 4);
		const month = digitsAt(text, 5, 2);
		const day = digitsAt(text, 8, 2);
		const hour = digitsAt(text, 11, 2);
		const minute = digitsAt(text, 14, 2);
		const second = digitsAt(text, 17, 2);
		const millisecond = length === 24 ? digitsAt(text, 20, 3) : 0;
		if (
			year >= 1000 &&
			month >= 1 &&
			month <= 12 &&
			day >= 1 &&
			day <= 28 &&
			hour >= 0 &&
			hour <= 23 &&
			minute >= 0 &&
			minute <= 59 &&
			second >= 0 &&
			second <= 59 &&
			millisecond >= 0
		) {
			return Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
		}
	}
	return Date.parse(text);
}

function pad(value: number): string {
	return String(Math.abs(value)).padStart(2, '0');
}

/** `+05:45`, `-03:30`: an offset in whole minutes, as formatInZone has always written it. */
export function offsetText(offsetMs: number): string {
	const offsetMinutes = Math.round(offsetMs / 60_000);
	const sign = offsetMinutes < 0 ? '-' : '+';
	return `${sign}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
}

// Bookings start and end at few distinct times of day, so a local time joins one shared date text and one shared
// time text (a quarter of the memory). Bounded: when full it is started over.
const MAX_TIME_TEXTS = 2_048;
const timeTexts = new Map<number, string>();
/** The last local date written: bookings listed together mostly share it. */
let lastDay = Number.NaN;
let lastDayText = '';

/** How many time texts are kept; for the test of the bound. */
export function timeTextCacheSize(): number {
	return timeTexts.size;
}

/** Years 1000–9999 only, where Date's ISO text has the four-digit year formatInZone writes. */
export function localTimeText(localMs: number, offsetMs: number): string {
	const day = Math.floor(localMs / DAY_MS);
	if (day !== lastDay) {
		lastDayText = new Date(day * DAY_MS).toISOString().slice(0, 10);
		lastDay = day;
	}
	const secondOfDay = Math.floor((localMs - day * DAY_MS) / 1000);
	// Offsets are whole seconds under a day, so this number names one pair of offset and second.
	const key = (offsetMs / 1000 + 86_400) * 86_400 + secondOfDay;
	let time = timeTexts.get(key);
	if (time === undefined) {
		if (timeTexts.size >= MAX_TIME_TEXTS) timeTexts.clear();
		const hour = Math.floor(secondOfDay / 3600);
		const minute = Math.floor(secondOfDay / 60) % 60;
		time = `T${pad(hour)}:${pad(minute)}:${pad(secondOfDay % 60)}${offsetText(offsetMs)}`;
		timeTexts.set(key, time);
	}
	return lastDayText + time;
}
