/**
 * The HTTP front: routing under /v1, authentication, the rate limit, scopes, path ids, injected
 * faults and the error envelope, in the order the contract implies (the scope is checked before the
 * body is validated). The control interface lives beside it under /_control.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { isoTime } from './clock.ts';
import { handleControl } from './control.ts';
import type { SimulatorControl } from './control.ts';
import { ApiError, errorEnvelope } from './errors.ts';
import type { ErrorCode } from './errors.ts';
import { SCOPES_OF_CHOICE } from './model.ts';
import {
	AUTH_DISCOVERY_PATH,
	AUTH_SCHEME_PATTERN,
	INVALID_PATH_ID_CODE,
	MAX_BODY_BYTES,
	OPERATION_SCOPE,
} from './policy.ts';
import { matchRoute } from './routes/index.ts';
import type { Reply, Route } from './routes/route.ts';
import type { Simulation } from './simulation.ts';
import type { KeyRecord } from './store.ts';
import type { FaultSpec } from './traffic.ts';
import { ID_PATTERN } from './validation.ts';

export function createSimulatorServer(sim: Simulation, control: SimulatorControl): Server {
	return createServer((request, response) => {
		handle(sim, control, request, response).catch((error: unknown) => {
			// Only reached if answering itself failed (e.g. the client went away); there is nobody left
			// to tell.
			console.error(
				'[simulator] could not answer a request:',
				error instanceof Error ? error.message : error,
			);
			response.destroy();
		});
	});
}

interface ReceivedBody {
	bytes: Buffer;
	tooLarge: boolean;
}

/** Reads the whole body, keeping at most MAX_BODY_BYTES of it. */
async function readBody(request: IncomingMessage): Promise<ReceivedBody> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size <= MAX_BODY_BYTES) chunks.push(chunk);
	}
	return { bytes: Buffer.concat(chunks), tooLarge: size > MAX_BODY_BYTES };
}

async function handle(
	sim: Simulation,
	control: SimulatorControl,
	request: IncomingMessage,
	response: ServerResponse,
): Promise<void> {
	const body = await readBody(request);
	const url = new URL(request.url ?? '/', sim.origin);
	const method = request.method ?? 'GET';
	if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) {
		await handleApi(sim, request, response, url, body);
		return;
	}
	if (url.pathname === '/_control' || url.pathname.startsWith('/_control/')) {
		send(
			response,
			await handleControl(control, method, url.pathname.slice('/_control'.length), body.bytes),
		);
		return;
	}
	send(response, {
		status: 404,
		body: errorEnvelope('not_found', `Nothing at ${url.pathname}; the API is under /v1.`),
	});
}

async function handleApi(
	sim: Simulation,
	request: IncomingMessage,
	response: ServerResponse,
	url: URL,
	body: ReceivedBody,
): Promise<void> {
	const method = request.method ?? 'GET';
	const match = matchRoute(method, url.pathname.slice('/v1'.length));
	const idempotencyKey = request.headers['idempotency-key'];
	const entry = sim.traffic.record({
		method,
		path: url.pathname,
		route: match?.route.pattern ?? null,
		query: queryObject(url.searchParams),
		status: null,
		idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : null,
		at: isoTime(sim.clock.now()),
	});

	const answer = await answerWithFaults(sim, match?.route, method, queryObject(url.searchParams), () =>
		operate(sim, request, url, body, match),
	);
	if (answer === 'drop') {
		response.destroy();
		return;
	}
	entry.status = answer.status;
	if (answer.status === 401) {
		// Contract, Authentication 7: every 401 names the (future) OAuth discovery address.
		answer.headers = {
			...answer.headers,
			'WWW-Authenticate': `Bearer resource_metadata="${sim.origin}${AUTH_DISCOVERY_PATH}"`,
		};
	}
	send(response, answer);
}

/** Runs the operation between the `before` and `after` faults injected for its route, if any. */
async function answerWithFaults(
	sim: Simulation,
	route: Route | undefined,
	method: string,
	query: Record<string, string | string[]>,
	run: () => Promise<Reply>,
): Promise<Reply | 'drop'> {
	const before =
		route === undefined ? undefined : sim.traffic.takeFault(method, route.pattern, 'before', query);
	if (before !== undefined) {
		const replaced = await applyFault(before);
		if (replaced !== undefined) return replaced;
	}
	const reply = await run();
	const after =
		route === undefined ? undefined : sim.traffic.takeFault(method, route.pattern, 'after', query);
	if (after !== undefined) {
		const replaced = await applyFault(after);
		if (replaced !== undefined) return replaced;
	}
	return reply;
}

const DEFAULT_FAULT_CODES: Record<number, ErrorCode> = {
	400: 'bad_request',
	401: 'unauthorized',
	403: 'insufficient_scope',
	404: 'not_found',
	409: 'booking_state_changed',
	429: 'rate_limited',
};

/** The reply that replaces the real one, or undefined when the fault only delays it. */
async function applyFault(fault: FaultSpec): Promise<Reply | 'drop' | undefined> {
	switch (fault.kind) {
		case 'latency':
			await new Promise((resolve) => setTimeout(resolve, fault.latencyMs ?? 0));
			return undefined;
		case 'drop':
			return 'drop';
		case 'rate_limit':
			return {
				status: 429,
				headers: { 'Retry-After': String(fault.retryAfterSeconds ?? 1) },
				body: errorEnvelope('rate_limited', fault.message ?? 'Too many requests.'),
			};
		case 'status': {
			const status = fault.status ?? 500;
			const code = fault.code ?? DEFAULT_FAULT_CODES[status] ?? 'internal_error';
			const headers: Record<string, string> =
				status === 429 ? { 'Retry-After': String(fault.retryAfterSeconds ?? 1) } : {};
			return { status, headers, body: errorEnvelope(code, fault.message ?? `Injected ${status}.`) };
		}
	}
}

async function operate(
	sim: Simulation,
	request: IncomingMessage,
	url: URL,
	body: ReceivedBody,
	match: { route: Route; id: string } | undefined,
): Promise<Reply> {
	try {
		const isPublic = match?.route.operation === 'openapi';
		const key = isPublic ? null : authenticate(sim, request.headers.authorization);
		if (key !== null) {
			const limited = sim.traffic.spend(key.id, sim.clock.now());
			if (limited !== undefined) {
				throw new ApiError('rate_limited', 'Request budget exceeded; retry later.', {
					headers: { 'Retry-After': String(limited.retryAfterSeconds) },
				});
			}
		}
		// not shown in the contract: unknown paths and methods. 404 not_found (405 is not declared).
		if (match === undefined)
			throw new ApiError('not_found', `No operation ${request.method} ${url.pathname}.`);
		const { route, id } = match;
		if (key !== null && route.operation !== 'openapi') {
			const scope = OPERATION_SCOPE[route.operation];
			// Before anything in the body is looked at (contract, Authentication 5).
			if (scope !== null && !SCOPES_OF_CHOICE[key.choice].includes(scope)) {
				throw new ApiError('insufficient_scope', `This API key lacks the ${scope} scope.`);
			}
		}
		if (route.pattern.includes('{id}') && !ID_PATTERN.test(id)) {
			throw new ApiError(INVALID_PATH_ID_CODE, 'The id in the path is not a valid id.', {
				details: [{ field: 'id', message: 'must be 24 lowercase hexadecimal characters' }],
			});
		}
		if (body.tooLarge) throw new ApiError('bad_request', 'The request body is too large.');
		return await route.handle({
			sim,
			url,
			headers: request.headers,
			rawBody: body.bytes,
			pathId: id,
			key,
		});
	} catch (error) {
		if (error instanceof ApiError)
			return { status: error.status, headers: error.headers, body: error.envelope() };
		console.error('[simulator] internal error:', error);
		return {
			status: 500,
			body: errorEnvelope('internal_error', 'The simulator failed unexpectedly.'),
		};
	}
}

/**
 * Contract, Authentication: `Authorization: Bearer <API_KEY>` with a single space, an existing
 * unrevoked key. Cookies are never read. Messages never repeat the key.
 */
function authenticate(sim: Simulation, header: string | undefined): KeyRecord {
	if (header === undefined) throw new ApiError('unauthorized', 'Missing Authorization header.');
	const match = AUTH_SCHEME_PATTERN.exec(header);
	if (match === null)
		throw new ApiError(
			'unauthorized',
			'Malformed Authorization header; expected "Bearer <API_KEY>".',
		);
	const key = sim.store.activeKey(match[1]);
	if (key === undefined)
		throw new ApiError('unauthorized', 'The API key is wrong or has been revoked.');
	return key;
}

function queryObject(params: URLSearchParams): Record<string, string | string[]> {
	const result: Record<string, string | string[]> = {};
	for (const name of new Set(params.keys())) {
		const values = params.getAll(name);
		result[name] = values.length === 1 ? values[0] : values;
	}
	return result;
}

function send(response: ServerResponse, reply: Reply): void {
	const headers: Record<string, string> = { ...reply.headers };
	if (reply.body === undefined) {
		response.writeHead(reply.status, headers).end();
		return;
	}
	headers['Content-Type'] = 'application/json; charset=utf-8';
	response.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
}
