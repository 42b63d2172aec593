// Drives a running n8n over HTTP: the public API (/api/v1, X-N8N-API-KEY) and the editor's internal API (/rest,
// owner's login cookie) for what the public API lacks (credential test, publication status, loaded types).
// Everything needed to connect is plain data (N8nConnection), so vitest's global setup can hand it to test files.

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { N8N_HARNESS, tail } from './install.ts';

/** The editor binds the auth cookie to a browser id; any constant works for a client that is not a browser. */
const BROWSER_ID = 'n8n-nodes-booking-service-tests';

export interface Owner {
	email: string;
	password: string;
}

/** What a client needs to reach one n8n process. Plain data: it can cross process boundaries. */
export interface N8nConnection {
	baseUrl: string;
	/** Base of webhook URLs as n8n gives them to trigger nodes: `${webhookUrl}webhook/<path>`. */
	webhookUrl: string;
	/** Public API key with every scope the owner may have. */
	apiKey: string;
	owner: Owner;
	/** The owner's `n8n-auth=…` login cookie, for /rest and /types. */
	cookie: string;
	/** N8N_USER_FOLDER (holds .n8n/ and the log). */
	userFolder: string;
	logFile: string;
}

/** An execution as the public API returns it with `includeData=true`. */
export interface Execution {
	id: string;
	finished: boolean;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt: string | null;
	workflowId: string;
	data?: {
		resultData: {
			runData: Record<string, Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>>;
			error?: { message: string; description?: string; name?: string };
			lastNodeExecuted?: string;
		};
	};
}

export interface WorkflowNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	position?: [number, number];
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	[key: string]: unknown;
}

export type Connections = Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;

export interface WorkflowInput {
	name: string;
	nodes: WorkflowNode[];
	connections: Connections;
	settings?: Record<string, unknown>;
}

export interface RunOptions {
	/** Workflow settings, e.g. `{ timezone: 'America/New_York' }`. */
	settings?: Record<string, unknown>;
	/** Called with the finished execution (with its run data of every node and output) before the workflow is deleted. */
	onExecution?: (execution: Execution) => void;
}

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/** Thrown by runWorkflowViaWebhook when the workflow fails; carries n8n's execution record. */
export class WorkflowRunError extends Error {
	readonly execution: Execution | undefined;
	readonly httpStatus: number;

	constructor(message: string, httpStatus: number, execution: Execution | undefined) {
		super(message);
		this.name = 'WorkflowRunError';
		this.httpStatus = httpStatus;
		this.execution = execution;
	}
}

export interface N8nClient extends N8nConnection {
	/** Public API call (`/api/v1` + path); returns the parsed JSON, throws on a non-2xx status. */
	api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
	/** Internal editor API call (`/rest` + path) with the owner's login; returns `data` from n8n's envelope. */
	rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
	createCredential(credential: {
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<{ id: string; name: string; type: string }>;
	/**
	 * The editor's credential "Test" button (POST /rest/credentials/test) on a saved credential, with `data` instead
	 * of the saved data if given. n8n applies the credential type's `authenticate` and runs its `test` request.
	 */
	testCredential(id: string, data?: Record<string, unknown>): Promise<CredentialTestResult>;
	createWorkflow(workflow: WorkflowInput): Promise<{ id: string; name: string }>;
	deleteWorkflow(id: string): Promise<void>;
	/**
	 * Publishes ("activates") a workflow and waits until n8n has registered its triggers (a trigger node's
	 * checkExists/create have run). Throws with the trigger's error message if that failed.
	 */
	activate(id: string): Promise<void>;
	/** Unpublishes a workflow and waits until n8n has removed its triggers (a trigger node's delete has run). */
	deactivate(id: string): Promise<void>;
	/** Executions of a workflow, newest first, with their run data. */
	listExecutions(workflowId: string): Promise<Execution[]>;
	/** Waits until the workflow has at least `count` finished executions; returns the finished ones, newest first. */
	waitForExecutions(workflowId: string, count: number, timeoutMs: number): Promise<Execution[]>;
	/** Type names of every node and credential type n8n loaded (the editor's /types files). */
	listNodeTypes(): Promise<{ nodes: string[]; credentials: string[] }>;
	/**
	 * Runs action nodes once: a temporary workflow `Webhook → nodes…` is created, published, called with `body` and
	 * deleted. Returns the JSON of the items the last node produced. Unless `connections` has a `Webhook` entry, the
	 * Webhook node feeds `nodes[0]`. Throws WorkflowRunError (with the execution) when the workflow fails.
	 */
	runWorkflowViaWebhook(
		nodes: WorkflowNode[],
		connections: Connections,
		body?: unknown,
		options?: RunOptions,
	): Promise<Array<Record<string, unknown>>>;
	/** The last lines of n8n's log file. */
	logTail(lines?: number): string;
}

type Call = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

async function call(url: string, method: string, headers: Record<string, string>, body: unknown): Promise<unknown> {
	const response = await fetch(url, {
		method,
		headers: {
			accept: 'application/json',
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
			...headers,
		},
		body: body === undefined ? undefined : JSON.stringify(body),
		signal: AbortSignal.timeout(60_000),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 2_000)}`);
	return text ? JSON.parse(text) : undefined;
}

function restClient(baseUrl: string, cookie: string): Call {
	return async <T>(method: string, path: string, body?: unknown) => {
		const envelope = (await call(`${baseUrl}/rest${path}`, method, { cookie, 'browser-id': BROWSER_ID }, body)) as {
			data: T;
		};
		return envelope?.data;
	};
}

/** Logs the owner in; returns the `n8n-auth=…` cookie. */
export async function login(baseUrl: string, owner: Owner): Promise<string> {
	const response = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': BROWSER_ID },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
		signal: AbortSignal.timeout(30_000),
	});
	if (!response.ok) throw new Error(`POST /rest/login answered ${response.status}: ${await response.text()}`);
	const cookie = response.headers
		.getSetCookie()
		.map((header) => header.split(';')[0])
		.find((pair) => pair.startsWith('n8n-auth='));
	if (!cookie) throw new Error('POST /rest/login set no n8n-auth cookie');
	return cookie;
}

/** A public-API key with every scope the owner's role allows (the list n8n's own settings page offers). */
export async function createApiKey(baseUrl: string, cookie: string): Promise<string> {
	const rest = restClient(baseUrl, cookie);
	const scopes = await rest<string[]>('GET', '/api-keys/scopes');
	// A label of its own per start: a restart on the same user folder (same database) must not collide.
	const label = `tests ${new Date().toISOString()} ${Math.random().toString(16).slice(2, 8)}`;
	const key = await rest<{ rawApiKey: string }>('POST', '/api-keys', { label, scopes, expiresAt: null });
	return key.rawApiKey;
}

interface PublicationStatus {
	status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed';
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

/**
 * n8n 2.41 publishes and unpublishes through an outbox: the API call returns at once, and a worker then registers or
 * removes the triggers (a trigger node's checkExists/create/delete run there). The editor's publication status says
 * when that is done and which trigger failed.
 */
/**
 * Waits for the outbox to settle toward `target`. Right after the API call the status can still show the state
 * before it (the outbox has not picked the job up yet): that counts as not settled for a few seconds.
 */
async function settledPublication(
	rest: Call,
	workflowId: string,
	target: 'published' | 'not_published',
): Promise<PublicationStatus> {
	const started = Date.now();
	const deadline = started + 60_000;
	for (;;) {
		const status = await rest<PublicationStatus>('GET', `/workflows/${workflowId}/publication-status`);
		const stillTheStateBefore =
			status.status === (target === 'published' ? 'not_published' : 'published') && Date.now() - started < 10_000;
		if (status.status !== 'in_progress' && !stillTheStateBefore) return status;
		if (Date.now() > deadline) throw new Error(`workflow ${workflowId}: (un)publishing did not finish in 60 s`);
		await sleep(50);
	}
}

export function connectN8n(connection: N8nConnection): N8nClient {
	const { baseUrl, apiKey, cookie } = connection;
	const rest = restClient(baseUrl, cookie);
	const api: Call = async <T>(method: string, path: string, body?: unknown) =>
		(await call(`${baseUrl}/api/v1${path}`, method, { 'x-n8n-api-key': apiKey }, body)) as T;

	const listExecutions = async (workflowId: string) => {
		const executions: Execution[] = [];
		let cursor: string | undefined;
		do {
			const query = new URLSearchParams({ workflowId, includeData: 'true', limit: '100' });
			if (cursor) query.set('cursor', cursor);
			const page = await api<{ data: Execution[]; nextCursor: string | null }>('GET', `/executions?${query}`);
			executions.push(...page.data);
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return executions;
	};

	const client: N8nClient = {
		...connection,
		api,
		rest,

		// n8n 1.x's public API refuses credentials without "allowedDomains"; its editor route takes them.
		createCredential: async (credential) =>
			N8N_HARNESS.credentialsViaRest
				? await rest('POST', '/credentials', credential)
				: await api('POST', '/credentials', credential),

		testCredential: async (id, data) => {
			const saved = await rest<{ name: string; type: string; data: Record<string, unknown> }>(
				'GET',
				`/credentials/${id}?includeData=true`,
			);
			return await rest<CredentialTestResult>('POST', '/credentials/test', {
				credentials: { id, name: saved.name, type: saved.type, data: data ?? saved.data },
			});
		},

		createWorkflow: async (workflow) =>
			await api('POST', '/workflows', { settings: { executionOrder: 'v1' }, ...workflow }),

		deleteWorkflow: async (id) => {
			// n8n 2.41 can still count a just-unpublished workflow as published for a moment (its outbox has settled
			// the triggers before the flag): a 409 "Cannot delete a published workflow" is tried again, for 10 s at most.
			const deadline = Date.now() + 10_000;
			for (;;) {
				try {
					await api('DELETE', `/workflows/${id}`);
					return;
				} catch (error) {
					if (!/answered 409/.test(String(error)) || Date.now() > deadline) throw error;
					await sleep(200);
				}
			}
		},

		activate: async (id) => {
			if (!N8N_HARNESS.publishApi) {
				// n8n 1.x and 2.16 activate synchronously and answers 400 with the trigger's error.
				await api('POST', `/workflows/${id}/activate`);
				return;
			}
			await api('POST', `/workflows/${id}/publish`, {});
			const status = await settledPublication(rest, id, 'published');
			if (status.status !== 'published') {
				const errors = status.triggers.map((trigger) => trigger.errorMessage).filter(Boolean);
				const reason = errors.join('; ') || 'no trigger error given';
				throw new Error(`workflow ${id} did not publish (${status.status}): ${reason}`);
			}
		},

		deactivate: async (id) => {
			if (!N8N_HARNESS.publishApi) {
				await api('POST', `/workflows/${id}/deactivate`);
				return;
			}
			await api('POST', `/workflows/${id}/unpublish`);
			await settledPublication(rest, id, 'not_published');
		},

		listExecutions,

		waitForExecutions: async (workflowId, count, timeoutMs) => {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const finished = (await listExecutions(workflowId)).filter((execution) => execution.stoppedAt);
				if (finished.length >= count) return finished;
				if (Date.now() > deadline) {
					throw new Error(`workflow ${workflowId}: ${finished.length} of ${count} executions finished in ${timeoutMs} ms`);
				}
				await sleep(200);
			}
		},

		listNodeTypes: async () => {
			// n8n rewrites these files after a community package install; read mid-write, one is cut short: read again.
			const names = async (file: string): Promise<string[]> => {
				const deadline = Date.now() + 15_000;
				for (;;) {
					try {
						const types = (await call(`${baseUrl}/types/${file}`, 'GET', { cookie }, undefined)) as Array<{ name: string }>;
						return types.map((type) => type.name);
					} catch (error) {
						if (!(error instanceof SyntaxError) || Date.now() > deadline) throw error;
						await sleep(250);
					}
				}
			};
			return { nodes: await names('nodes.json'), credentials: await names('credentials.json') };
		},

		runWorkflowViaWebhook: async (nodes, connections, body = {}, options = {}) =>
			await runWorkflowViaWebhook(client, nodes, connections, body, options),

		logTail: (lines = 60) => tail(connection.logFile, lines),
	};
	return client;
}

const WEBHOOK_NODE_NAME = 'Webhook';

async function runWorkflowViaWebhook(
	n8n: N8nClient,
	nodes: WorkflowNode[],
	connections: Connections,
	body: unknown,
	options: RunOptions,
): Promise<Array<Record<string, unknown>>> {
	if (nodes.length === 0) throw new Error('runWorkflowViaWebhook needs at least one node after the Webhook');
	const path = `run-${randomUUID()}`;
	const webhook: WorkflowNode = {
		name: WEBHOOK_NODE_NAME,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2.1,
		webhookId: randomUUID(),
		position: [0, 0],
		// lastNode + allEntries: the response is the JSON of every item the last node produced, after the run ends.
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'allEntries', options: {} },
	};
	const placed = nodes.map((node, index) => ({ position: [240 * (index + 1), 0] as [number, number], ...node }));
	const workflow = await n8n.createWorkflow({
		name: `run ${path}`,
		nodes: [webhook, ...placed],
		connections: { [WEBHOOK_NODE_NAME]: { main: [[{ node: nodes[0].name, type: 'main', index: 0 }]] }, ...connections },
		...(options.settings ? { settings: { executionOrder: 'v1', ...options.settings } } : {}),
	});
	let published = false;
	try {
		await n8n.activate(workflow.id);
		published = true;
		const response = await postWhenRegistered(`${n8n.webhookUrl}webhook/${path}`, body);
		const text = await response.text();
		if (!response.ok) {
			// A failed run answers 500 with a generic message; the execution holds the node's error.
			const [execution] = await n8n.waitForExecutions(workflow.id, 1, 10_000).catch(() => [undefined]);
			const error = execution?.data?.resultData.error;
			const detail = error ? `${error.message}${error.description ? ` (${error.description})` : ''}` : text;
			throw new WorkflowRunError(`workflow failed (HTTP ${response.status}): ${detail}`, response.status, execution);
		}
		if (options.onExecution) {
			const [execution] = await n8n.waitForExecutions(workflow.id, 1, 10_000);
			options.onExecution(execution);
		}
		return text ? JSON.parse(text) : [];
	} finally {
		if (published) await n8n.deactivate(workflow.id);
		await n8n.deleteWorkflow(workflow.id);
	}
}

/** A webhook can answer 404 for a moment after its workflow was published: retry while it does. */
async function postWhenRegistered(url: string, body: unknown): Promise<Response> {
	const deadline = Date.now() + 15_000;
	for (;;) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
			signal: AbortSignal.timeout(120_000),
		});
		if (response.status !== 404 || Date.now() > deadline) return response;
		await response.body?.cancel();
		await sleep(100);
	}
}
