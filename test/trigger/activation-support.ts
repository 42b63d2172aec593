// Red-team round 27: two pieces of set-up the single-node engine harness does not have.
// - TwoTriggerWorkflow: one workflow with two Booking Service Trigger nodes, activated the way n8n 2.41.1 and
//   1.123.81 do it in ActiveWorkflowManager.addWebhooks (dist/active-workflow-manager.js): per webhook node in order,
//   checkExists then create; on a throw, clearWebhooks — a new Workflow over the static data *as stored in the
//   database* (what the failed activation changed is not saved), delete for every webhook node, save — then rethrow.
//   Deliveries reach each node's webhook() through n8n-core's WebhookContext, with the harness's pieces
//   (test/harness/engine-webhooks.ts) that test/harness/trigger.ts uses too.
// - startTricklingProxy: a loopback proxy in front of the simulator that can answer a request the way a slow service
//   or a middlebox can: the status line and headers at once, then the body a byte at a time.
import '../harness/n8n-environment.ts';

import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { IDataObject, INode, IWebhookData, WorkflowActivateMode, WorkflowExecuteMode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';
import { createNodeTypes, TestCredentialsHelper } from '../harness/engine.ts';
import type { LogLine } from '../harness/engine-webhooks.ts';
import { recordLogs, runWebhookMethod, staticDataToSave, webhookRequestContext } from '../harness/engine-webhooks.ts';
import { closeServer, listenOnLoopback } from '../harness/loopback.ts';
import { TRIGGER_NODE_TYPE, webhookDataAt } from '../harness/trigger.ts';

export interface TriggerNodeSpec {
	name: string;
	id: string;
	webhookId: string;
	parameters: IDataObject;
}

type HookName = 'checkExists' | 'create' | 'delete';

export class TwoTriggerWorkflow {
	readonly runs: Array<{ node: string; eventType: unknown; eventId: unknown }> = [];
	readonly logs: LogLine[] = [];
	/** Called before every hook n8n runs, e.g. to inject a fault at one node's request only. */
	beforeHook: ((node: string, hook: HookName) => void) | undefined;
	origin = '';
	readonly workflowId = `wf-two-${Math.random().toString(16).slice(2)}`;
	#stored = '{}';
	#active = false;
	#credentials: TestCredentialsHelper;
	readonly #nodeType = new BookingServiceTrigger();
	readonly #nodeTypes = createNodeTypes({ [TRIGGER_NODE_TYPE]: this.#nodeType });
	readonly #server: Server;

	readonly nodes: TriggerNodeSpec[];

	constructor(nodes: TriggerNodeSpec[], credential: { apiKey: string; baseUrl: string }) {
		this.nodes = nodes;
		this.#credentials = new TestCredentialsHelper({ bookingServiceApi: credential });
		this.#server = createServer((request, response) => void this.#handle(request, response));
	}

	async start(): Promise<this> {
		this.origin = await listenOnLoopback(this.#server);
		return this;
	}

	async close(): Promise<void> {
		await closeServer(this.#server);
	}

	setCredential(credential: { apiKey: string; baseUrl: string }): void {
		this.#credentials = new TestCredentialsHelper({ bookingServiceApi: credential });
	}

	nodeStaticData(name: string): IDataObject {
		return ((JSON.parse(this.#stored) as IDataObject)[`node:${name}`] ?? {}) as IDataObject;
	}

	/** ActiveWorkflowManager.addWebhooks: each node in order; on a throw, clearWebhooks from the stored data. */
	async activate(activation: WorkflowActivateMode): Promise<void> {
		const workflow = this.#workflow(JSON.parse(this.#stored) as IDataObject);
		for (const spec of this.nodes) {
			try {
				const exists = await this.#hook('checkExists', workflow, spec, 'trigger', activation);
				if (!exists) await this.#hook('create', workflow, spec, 'trigger', activation);
			} catch (error) {
				await this.clearWebhooks();
				throw error;
			}
		}
		this.#save(workflow);
		this.#active = true;
	}

	/** ActiveWorkflowManager.clearWebhooks: the stored static data, delete for every webhook node, saved. */
	async clearWebhooks(): Promise<void> {
		const workflow = this.#workflow(JSON.parse(this.#stored) as IDataObject);
		for (const spec of this.nodes) await this.#hook('delete', workflow, spec, 'internal', 'update');
		this.#save(workflow);
		this.#active = false;
	}

	#save(workflow: Workflow): void {
		this.#stored = staticDataToSave(workflow) ?? this.#stored;
	}

	#workflow(staticData: IDataObject): Workflow {
		return new Workflow({
			id: this.workflowId,
			name: 'Two booking triggers',
			nodes: this.nodes.map(
				(spec) =>
					({
						id: spec.id,
						name: spec.name,
						type: TRIGGER_NODE_TYPE,
						typeVersion: 1,
						position: [0, 0],
						webhookId: spec.webhookId,
						parameters: structuredClone(spec.parameters),
						credentials: { bookingServiceApi: { id: 'cred-1', name: 'Booking Service account' } },
					}) as INode,
			),
			connections: {},
			active: this.#active,
			nodeTypes: this.#nodeTypes,
			staticData,
		});
	}

	#webhookData(workflow: Workflow, spec: TriggerNodeSpec): IWebhookData {
		return webhookDataAt(this.origin, this.#credentials, this.#nodeType, workflow, spec, false);
	}

	async #hook(
		method: HookName,
		workflow: Workflow,
		spec: TriggerNodeSpec,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		this.beforeHook?.(spec.name, method);
		const webhookData = this.#webhookData(workflow, spec);
		return await runWebhookMethod(this.#nodeType, method, workflow, webhookData, { mode, activation }, (context) =>
			recordLogs(context, this.logs),
		);
	}

	async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of request) chunks.push(chunk as Buffer);
		const rawBody = Buffer.concat(chunks);
		const path = new URL(request.url ?? '/', this.origin).pathname;
		const spec = this.nodes.find((node) => path === `/webhook/${node.webhookId}/webhook`);
		if (spec === undefined || !this.#active) {
			response.writeHead(404).end();
			return;
		}
		const workflow = this.#workflow(JSON.parse(this.#stored) as IDataObject);
		const webhookData = this.#webhookData(workflow, spec);
		const context = webhookRequestContext(workflow, webhookData, 'webhook', { request, rawBody, response });
		recordLogs(context, this.logs);
		const result = await this.#nodeType.webhook!.call(context);
		if (result.noWebhookResponse === true) {
			if (!response.writableEnded) response.end();
			return;
		}
		if (result.workflowData !== undefined) {
			const json = result.workflowData[0][0].json;
			this.runs.push({ node: spec.name, eventType: json.eventType, eventId: json.eventId });
		}
		response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
	}
}

export interface TricklingProxy {
	baseUrl: string;
	/** The next request matching method and path (the part after the base URL) is answered 200 at once, then its
	 * body is preceded by one JSON whitespace byte a second for `seconds` seconds (the answer stays valid JSON). */
	trickle(method: string, path: string, seconds: number): void;
	close(): Promise<void>;
}

export async function startTricklingProxy(targetBaseUrl: string): Promise<TricklingProxy> {
	const target = new URL(targetBaseUrl);
	const armed: Array<{ method: string; path: string; seconds: number }> = [];
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const path = (request.url ?? '/').slice(target.pathname.length);
			const index = armed.findIndex((rule) => rule.method === request.method && rule.path === path);
			const rule = index === -1 ? undefined : armed.splice(index, 1)[0];
			const upstream = httpRequest(
				{
					host: target.hostname,
					port: target.port,
					method: request.method,
					path: request.url,
					headers: { ...request.headers, host: target.host },
				},
				(answer) => {
					const body: Buffer[] = [];
					answer.on('data', (chunk: Buffer) => body.push(chunk));
					answer.on('end', () => {
						const headers = { ...answer.headers };
						delete headers['content-length'];
						response.writeHead(answer.statusCode ?? 502, headers);
						if (rule === undefined) {
							response.end(Buffer.concat(body));
							return;
						}
						let sent = 0;
						const timer = setInterval(() => {
							if (response.destroyed) return clearInterval(timer);
							if (sent >= rule.seconds) {
								clearInterval(timer);
								response.end(Buffer.concat(body));
								return;
							}
							sent += 1;
							response.write(' ');
						}, 1_000);
						response.write(' ');
					});
				},
			);
			upstream.on('error', () => response.destroy());
			upstream.end(Buffer.concat(chunks));
		});
	});
	const origin = await listenOnLoopback(server);
	return {
		baseUrl: `${origin}${target.pathname.replace(/\/$/, '')}`,
		trickle: (method, path, seconds) => armed.push({ method, path, seconds }),
		close: async () => await closeServer(server),
	};
}
