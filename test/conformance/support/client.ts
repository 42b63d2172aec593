/**
 * A plain HTTP client for the conformance tests: undici over 127.0.0.1, nothing cached, every
 * header visible.
 */
import { request } from 'undici';
import type { Simulator } from '../../simulator/index.ts';

export interface ApiResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	/** Parsed JSON, or undefined for an empty body. */
	body: any;
}

export interface CallOptions {
	/** The bearer key; default the read-write key; null sends no Authorization header. */
	key?: string | null;
	/** Sent as JSON with `Content-Type: application/json`. */
	json?: unknown;
	/** Sent as is (no content type added). */
	raw?: string;
	headers?: Record<string, string>;
}

export async function call(
	sim: Simulator,
	method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH',
	path: string,
	options: CallOptions = {},
): Promise<ApiResponse> {
	const key = options.key === undefined ? sim.apiKeys.readWrite : options.key;
	const headers: Record<string, string> = { ...options.headers };
	if (key !== null) headers.authorization ??= `Bearer ${key}`;
	let body: string | undefined = options.raw;
	if (options.json !== undefined) {
		headers['content-type'] ??= 'application/json';
		body = JSON.stringify(options.json);
	}
	const response = await request(`${sim.baseUrl}${path}`, { method, headers, body });
	const text = await response.body.text();
	return {
		status: response.statusCode,
		headers: response.headers,
		body: text === '' ? undefined : JSON.parse(text),
	};
}

/** A control-interface call over HTTP (no authentication). */
export async function control(
	sim: Simulator,
	method: 'GET' | 'POST' | 'DELETE',
	path: string,
	json?: unknown,
): Promise<ApiResponse> {
	const response = await request(`${sim.controlUrl}${path}`, {
		method,
		headers: json === undefined ? {} : { 'content-type': 'application/json' },
		body: json === undefined ? undefined : JSON.stringify(json),
	});
	const text = await response.body.text();
	return {
		status: response.statusCode,
		headers: response.headers,
		body: text === '' ? undefined : JSON.parse(text),
	};
}

/** Follows nextCursor to the end; bounded so a cursor loop cannot hang a test. */
export async function listAll(
	sim: Simulator,
	path: string,
	maxPages = 500,
): Promise<{ items: any[]; pages: number }> {
	const items: any[] = [];
	const separator = path.includes('?') ? '&' : '?';
	let cursor: string | null = null;
	for (let pages = 1; pages <= maxPages; pages += 1) {
		const suffix: string =
			cursor === null ? '' : `${separator}cursor=${encodeURIComponent(cursor)}`;
		const response = await call(sim, 'GET', `${path}${suffix}`);
		if (response.status !== 200)
			throw new Error(`page ${pages}: ${response.status} ${JSON.stringify(response.body)}`);
		items.push(...response.body.items);
		cursor = response.body.nextCursor;
		if (cursor === null) return { items, pages };
	}
	throw new Error(`more than ${maxPages} pages`);
}
