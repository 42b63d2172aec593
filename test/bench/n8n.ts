/**
 * The real n8n of a bench run (sections 2 and 4 share it): n8n 2.41.1 from .cache/n8n (test/n8n/install.ts installs
 * it on first use, about 5 minutes cold), started by test/n8n/instance.ts with this repository's package installed as
 * users get it (npm pack of the built package), plus what the bench needs on top: credentials for the simulator and
 * cheap ways to count and time executions.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { N8nInstance } from '../n8n/instance.ts';
import { startN8n } from '../n8n/instance.ts';
import type { SimulatorProcess } from './processes.ts';
import { packageDir, progress } from './processes.ts';

export interface CredentialReference {
	id: string;
	name: string;
}

export interface N8nBench {
	client: N8nInstance;
	/** Our credential type, pointing at the simulator (read-and-write key: the trigger subscribes with it). */
	bookingCredential: CredentialReference;
	/** A Header Auth credential with the same key, for n8n's HTTP Request node. */
	headerCredential: CredentialReference;
	stop(): Promise<void>;
}

/**
 * `extraEnv` goes to n8n as is (run.ts --n8n-env), e.g. N8N_EXPRESSION_ENGINE=legacy to see what n8n's expression
 * isolates cost.
 */
export async function startN8nBench(
	sim: SimulatorProcess,
	cpuProfileDir?: string,
	extraEnv: Record<string, string> = {},
): Promise<N8nBench> {
	progress(`n8n: starting with the package in ${packageDir()} (installs n8n into .cache/n8n first if needed: ~5 min once)`);
	const client = await startN8n({
		packageDir: packageDir(),
		startTimeoutMs: 180_000,
		env: {
			// Quieter logs; the bench reads executions through the API, not the log.
			N8N_LOG_LEVEL: 'warn',
			...(cpuProfileDir === undefined ? {} : { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfileDir}` }),
			...extraEnv,
		},
	});
	progress(`n8n: ready at ${client.baseUrl} in ${Math.round(client.startMs / 1000)} s (pid ${client.pid})`);
	try {
		const bookingCredential = await client.createCredential({
			name: 'Booking Service (simulator)',
			type: 'bookingServiceApi',
			data: { apiKey: sim.apiKeys.readWrite, baseUrl: sim.baseUrl },
		});
		const headerCredential = await client.createCredential({
			name: 'Booking Service key as a header',
			type: 'httpHeaderAuth',
			data: { name: 'Authorization', value: `Bearer ${sim.apiKeys.readWrite}` },
		});
		return {
			client,
			bookingCredential: { id: bookingCredential.id, name: bookingCredential.name },
			headerCredential: { id: headerCredential.id, name: headerCredential.name },
			stop: () => client.stop(),
		};
	} catch (error) {
		await client.stop();
		throw error;
	}
}

const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/**
 * How many executions of a workflow have finished (in any outcome); with `all`, running and waiting ones too. The
 * editor's API answers with a count; the public one has none.
 */
export async function countExecutions(client: N8nInstance, workflowId: string, all = false): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, ...(all ? {} : { status: FINISHED }) }));
	const answer = await client.rest<{ count: number; estimated: boolean }>('GET', `/executions?filter=${filter}&limit=1`);
	if (answer.estimated) throw new Error('n8n estimated the execution count; the bench needs an exact one');
	return answer.count;
}

export interface ExecutionSummary {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt: string | null;
}

/** The workflow's executions with an id above `afterId` (ids grow), without their data. */
export async function executionsAfter(
	client: N8nInstance,
	workflowId: string,
	afterId: number,
	includeData = false,
): Promise<Array<ExecutionSummary & { data?: unknown }>> {
	const found: Array<ExecutionSummary & { data?: unknown }> = [];
	let cursor: string | undefined;
	for (let page = 0; page < 1_000; page++) {
		const query = new URLSearchParams({ workflowId, limit: includeData ? '50' : '250', includeData: String(includeData) });
		if (cursor !== undefined) query.set('cursor', cursor);
		const answer = await client.api<{ data: Array<ExecutionSummary & { data?: unknown }>; nextCursor: string | null }>(
			'GET',
			`/executions?${query}`,
		);
		const newer = answer.data.filter((execution) => Number(execution.id) > afterId);
		found.push(...newer);
		// Newest first: once a page reaches back past afterId, the rest is older.
		if (newer.length < answer.data.length || answer.nextCursor === null) break;
		cursor = answer.nextCursor;
	}
	return found;
}

/** The highest execution id of the workflow so far (0 if none). */
export async function lastExecutionId(client: N8nInstance, workflowId: string): Promise<number> {
	const answer = await client.api<{ data: ExecutionSummary[] }>('GET', `/executions?workflowId=${workflowId}&limit=1`);
	return Number(answer.data[0]?.id ?? 0);
}

/**
 * Waits until the workflow has `count` finished executions, or `timeoutMs` passes; returns the last count seen.
 * Polls every 100 ms with one cheap request.
 */
export async function waitForExecutionCount(
	client: N8nInstance,
	workflowId: string,
	count: number,
	timeoutMs: number,
): Promise<number> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const seen = await countExecutions(client, workflowId);
		if (seen >= count || Date.now() > deadline) return seen;
		await sleep(100);
	}
}

/**
 * POSTs until the URL stops answering 404: n8n registers a published workflow's webhooks a moment after publishing
 * returns. Resolves with the first other answer's status.
 */
export async function postWhenRegistered(
	url: string,
	body: string | Buffer,
	headers: Record<string, string>,
	timeoutMs = 15_000,
): Promise<{ status: number; text: string }> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(120_000) });
		const text = await response.text();
		if (response.status !== 404 || Date.now() > deadline) return { status: response.status, text };
		await sleep(100);
	}
}
