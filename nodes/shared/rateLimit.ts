/** How long the transport waits when the service answers 429: Retry-After if it gives one, else jittered back-off. */
import type { IDataObject } from 'n8n-workflow';
import { randomInt } from 'n8n-workflow';

/** One first try plus four retries: enough to ride out a short burst, short enough to fail while the user waits. */
export const MAX_RATE_LIMIT_ATTEMPTS = 5;
/** A Retry-After longer than this is not waited out inside an execution: the node fails and says how long. */
export const MAX_RETRY_AFTER_SECONDS = 60;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_CAP_MS = 16_000;

/** Retry-After (seconds or an HTTP date) wins; without it, full-jitter exponential back-off. Undefined: too long. */
export function rateLimitWaitMs(headers: IDataObject, attempt: number): number | undefined {
	const retryAfterSeconds = parseRetryAfterSeconds(headers['retry-after']);
	if (retryAfterSeconds !== undefined) {
		return retryAfterSeconds > MAX_RETRY_AFTER_SECONDS ? undefined : retryAfterSeconds * 1000;
	}
	const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
	return randomInt(ceiling / 2, ceiling + 1);
}

export function parseRetryAfterSeconds(value: unknown): number | undefined {
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (/^\d+$/.test(text)) return Number(text);
	// Otherwise only an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT"); Date.parse would also take "-1" as a year.
	if (!/^[A-Za-z]{3}, /.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
