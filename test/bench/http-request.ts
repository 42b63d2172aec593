/**
 * 2. Against n8n's own HTTP Request node: in one real n8n process, Return All of the same 10,000 bookings through our
 * action node, and through the HTTP Request node with its pagination option (cursor from `$response.body.nextCursor`)
 * followed by a Split Out node, which is what a user needs to get the same 10,000 booking items. The HTTP Request node
 * alone (100 page items, not split) is measured too, to show where the time goes. Target: ours clearly faster, under
 * 0.9× their time (ratio of medians).
 *
 * Each variant is a workflow `Webhook → …` whose Webhook answers when the last node is done (responseMode lastNode,
 * no data in the answer); the time is the HTTP round trip of that call. Execution data saving is off for these
 * workflows (saveDataSuccessExecution: none), so the figure compares the nodes' work, not sqlite writing 7–15 MB of
 * run data (which would cost the HTTP Request + Split Out variant roughly twice as much as ours).
 * Every run's pages are checked in the simulator's request log; one extra run per variant returns its items and checks
 * there are 10,000 distinct bookings.
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowNode } from '../n8n/client.ts';
import type { BenchContext, Section } from './context.ts';
import { runCounts } from './context.ts';
import type { N8nBench } from './n8n.ts';
import { postWhenRegistered } from './n8n.ts';
import type { SimulatorProcess } from './processes.ts';
import { progress } from './processes.ts';
import type { Check, SectionReport } from './report.ts';
import { infoRow, targetRow } from './report.ts';
import { ensureListedBookings, RETURN_ALL_ITEMS } from './return-all.ts';
import { rotate, summarize } from './stats.ts';

const VARIANTS = ['actionNode', 'httpRequestSplitOut', 'httpRequestOnly'] as const;
type Variant = (typeof VARIANTS)[number];
const PAGES = RETURN_ALL_ITEMS / 100;

function variantNodes(variant: Variant, n8n: N8nBench, sim: SimulatorProcess): WorkflowNode[] {
	if (variant === 'actionNode') {
		return [
			{
				name: 'Booking Service',
				type: 'n8n-nodes-booking-service.bookingService',
				typeVersion: 1,
				parameters: { resource: 'booking', operation: 'getMany', returnAll: true },
				credentials: { bookingServiceApi: n8n.bookingCredential },
			},
		];
	}
	const httpRequest: WorkflowNode = {
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'GET',
			url: `${sim.baseUrl}/bookings`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'limit', value: '100' }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: { parameters: [{ type: 'qs', name: 'cursor', value: '={{ $response.body.nextCursor }}' }] },
						paginationCompleteWhen: 'other',
						completeExpression: '={{ !$response.body.nextCursor }}',
						limitPagesFetched: true,
						maxRequests: 1_000,
						requestInterval: 0,
					},
				},
			},
		},
		credentials: { httpHeaderAuth: n8n.headerCredential },
	};
	if (variant === 'httpRequestOnly') return [httpRequest];
	return [
		httpRequest,
		{
			name: 'Split Out',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: 'items', include: 'noOtherFields', options: {} },
		},
	];
}

/** A published workflow `Webhook → nodes` and the URL that runs it. */
async function createRunner(n8n: N8nBench, nodes: WorkflowNode[], returnItems: boolean): Promise<{ id: string; url: string }> {
	const path = `bench-${randomUUID()}`;
	const all: WorkflowNode[] = [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			webhookId: randomUUID(),
			parameters: {
				httpMethod: 'POST',
				path,
				responseMode: 'lastNode',
				responseData: returnItems ? 'allEntries' : 'noData',
				options: {},
			},
		},
		...nodes,
	].map((node, index) => ({ position: [240 * index, 0] as [number, number], ...node }));
	const connections = Object.fromEntries(
		all.slice(0, -1).map((node, index) => [node.name, { main: [[{ node: all[index + 1].name, type: 'main' as const, index: 0 }]] }]),
	);
	const workflow = await n8n.client.createWorkflow({
		name: `bench ${path}`,
		nodes: all,
		connections,
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'none', saveManualExecutions: false },
	});
	await n8n.client.activate(workflow.id);
	return { id: workflow.id, url: `${n8n.client.webhookUrl}webhook/${path}` };
}

interface RequestLogEntry {
	route: string | null;
	status: number | null;
}

/** Runs the workflow once; returns the round-trip milliseconds and the GET /bookings requests it made. */
async function runOnce(url: string, sim: SimulatorProcess): Promise<{ ms: number; pages: RequestLogEntry[]; text: string }> {
	await sim.control('DELETE', '/requests');
	const started = performance.now();
	const answer = await postWhenRegistered(url, '{}', { 'content-type': 'application/json' });
	const ms = performance.now() - started;
	if (answer.status !== 200) throw new Error(`the workflow answered ${answer.status}: ${answer.text.slice(0, 500)}`);
	const { items } = await sim.control<{ items: RequestLogEntry[] }>('GET', '/requests');
	return { ms, pages: items.filter((entry) => entry.route === '/bookings'), text: answer.text };
}

export const httpRequestSection: Section = {
	id: 'http-request',
	title: "Return All in real n8n: our node vs n8n's HTTP Request node with pagination",
	async run(context: BenchContext): Promise<SectionReport> {
		const sim = await context.simulator();
		await ensureListedBookings(sim, RETURN_ALL_ITEMS);
		const n8n = await context.n8n();
		const counts = runCounts(context, { warmups: 2, runs: 5 }, { warmups: 1, runs: 3 });
		const checks: Check[] = [];

		const runners = {} as Record<Variant, { id: string; url: string }>;
		for (const variant of VARIANTS) runners[variant] = await createRunner(n8n, variantNodes(variant, n8n, sim), false);

		// One run per variant that returns the items: the same 10,000 bookings, each once.
		for (const variant of ['actionNode', 'httpRequestSplitOut'] as const) {
			const verifier = await createRunner(n8n, variantNodes(variant, n8n, sim), true);
			const { text } = await runOnce(verifier.url, sim);
			const items = JSON.parse(text) as Array<{ id?: string }>;
			const distinct = new Set(items.map((item) => item.id)).size;
			checks.push({
				what: `${variant} in n8n returns every booking once`,
				passed: items.length === RETURN_ALL_ITEMS && distinct === RETURN_ALL_ITEMS,
				detail: `${items.length} items, ${distinct} distinct ids`,
			});
			await n8n.client.deactivate(verifier.id);
			await n8n.client.deleteWorkflow(verifier.id);
		}

		progress(`http-request: ${counts.warmups} warm-up + ${counts.runs} runs of each of ${VARIANTS.length} workflows`);
		const samples: Record<Variant, number[]> = { actionNode: [], httpRequestSplitOut: [], httpRequestOnly: [] };
		const badPages: string[] = [];
		for (let index = 0; index < counts.warmups + counts.runs && Date.now() < context.deadline; index++) {
			for (const variant of rotate(index, VARIANTS)) {
				const { ms, pages } = await runOnce(runners[variant].url, sim);
				if (pages.length !== PAGES || pages.some((page) => page.status !== 200)) {
					badPages.push(`${variant}: ${pages.length} page requests, statuses ${[...new Set(pages.map((page) => page.status))].join('/')}`);
				}
				if (index >= counts.warmups) samples[variant].push(ms);
			}
		}
		checks.push({
			what: `every run read all ${PAGES} pages, each answered 200`,
			passed: badPages.length === 0,
			detail: badPages.length === 0 ? `${VARIANTS.length} variants × ${counts.warmups + counts.runs} runs` : badPages.join('; '),
		});
		for (const variant of VARIANTS) {
			await n8n.client.deactivate(runners[variant].id);
			await n8n.client.deleteWorkflow(runners[variant].id);
		}

		const ours = summarize(samples.actionNode);
		const split = summarize(samples.httpRequestSplitOut);
		const only = summarize(samples.httpRequestOnly);
		return {
			id: this.id,
			title: this.title,
			rows: [
				targetRow(
					2,
					`Return All in real n8n, ${RETURN_ALL_ITEMS.toLocaleString('en')} bookings: our node vs HTTP Request (pagination) + Split Out, same process`,
					ours,
					split,
					'ms',
					{ below: 0.9 },
				),
				infoRow(2, 'Return All in real n8n: our node vs HTTP Request (pagination) alone, 100 page items not split', ours, only, 'ms'),
			],
			checks,
			notes: [
				'Time = HTTP round trip of a Webhook-started run (the Webhook answers after the last node); execution data saving is off for these workflows in both variants.',
			],
			data: { samples, counts },
		};
	},
};
