import type { IncomingHttpHeaders } from 'node:http';
import type { OPERATION_SCOPE } from '../policy.ts';
import type { Simulation } from '../simulation.ts';
import type { KeyRecord } from '../store.ts';

/**
 * What an operation sees of its request. Authentication, rate limit and scope are settled before it
 * runs.
 */
export interface RequestContext {
	sim: Simulation;
	url: URL;
	headers: IncomingHttpHeaders;
	rawBody: Buffer;
	/** The `{id}` path parameter, already checked against `^[0-9a-f]{24}$`. */
	pathId: string;
	/** The caller's key; null only for the public OpenAPI document. */
	key: KeyRecord | null;
}

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

export interface Route {
	/**
	 * Names the operation; its required scope comes from OPERATION_SCOPE, and `openapi` needs no key.
	 */
	operation: keyof typeof OPERATION_SCOPE | 'openapi';
	method: 'GET' | 'POST' | 'DELETE';
	/** The path under `/v1` exactly as the contract writes it. */
	pattern: string;
	handle(context: RequestContext): Reply | Promise<Reply>;
}
