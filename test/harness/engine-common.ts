/**
 * What the engine harness (test/harness/engine.ts, under vitest, nodes from source) and the bench engine
 * (test/bench/engine.ts, plain Node, built nodes) both need: applying a declarative `authenticate`, and the fixed part
 * of n8n's "additional data". Loadable by both, so: type-only imports from n8n, `.ts` import paths, erasable syntax
 * only, and nothing from nodes/ or credentials/.
 */
import type {
	IDataObject,
	IHttpRequestOptions,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

/**
 * Merges a declarative credential's `authenticate.properties` into a copy of the request as n8n's CredentialsHelper
 * does: keys and values resolved by `resolve` (the `=` expressions, with `$credentials`), then merged into the
 * request's headers / qs / body / auth.
 */
export function applyDeclarativeAuthenticate(
	properties: object,
	requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	resolve: (value: unknown) => unknown,
): IHttpRequestOptions {
	const authenticated = { ...requestOptions } as IHttpRequestOptions & Record<string, unknown>;
	for (const [target, entries] of Object.entries(properties)) {
		const resolved: IDataObject = {};
		for (const [key, value] of Object.entries(entries as IDataObject)) {
			resolved[String(resolve(key))] = resolve(value) as IDataObject[string];
		}
		authenticated[target] = {
			...(authenticated[target] as IDataObject | undefined),
			...resolved,
		};
	}
	return authenticated;
}

export interface AdditionalDataParts {
	credentialsHelper: unknown;
	hooks?: unknown;
	executionId?: string;
	/** Makes the stand-in for a service the process does not offer (it throws, naming `what`). */
	unavailable: (what: string) => () => Promise<never>;
	webhookBaseUrl?: string;
	webhookTestBaseUrl?: string;
}

const N8N_ORIGIN = 'http://127.0.0.1:5678';

/** Everything WorkflowExecute and the node contexts read from "additional data", for a test or bench process. */
export function baseAdditionalData(parts: AdditionalDataParts): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: parts.credentialsHelper,
		hooks: parts.hooks,
		executionId: parts.executionId,
		executeWorkflow: parts.unavailable('executeWorkflow'),
		startRunnerTask: parts.unavailable('startRunnerTask'),
		// Only read when an expression uses $secrets.
		externalSecretsProxy: {
			hasProvider: () => false,
			hasSecret: () => false,
			getSecret: () => undefined,
			listSecrets: () => [],
		},
		getRunExecutionData: parts.unavailable('getRunExecutionData'),
		getRuntimeCredential: parts.unavailable('getRuntimeCredential'),
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		restApiUrl: `${N8N_ORIGIN}/rest`,
		instanceBaseUrl: `${N8N_ORIGIN}/`,
		formBaseUrl: `${N8N_ORIGIN}/form`,
		formWaitingBaseUrl: `${N8N_ORIGIN}/form-waiting`,
		formTestBaseUrl: `${N8N_ORIGIN}/form-test`,
		webhookBaseUrl: parts.webhookBaseUrl ?? `${N8N_ORIGIN}/webhook`,
		webhookWaitingBaseUrl: `${N8N_ORIGIN}/webhook-waiting`,
		webhookTestBaseUrl: parts.webhookTestBaseUrl ?? `${N8N_ORIGIN}/webhook-test`,
		mcpBaseUrl: `${N8N_ORIGIN}/mcp`,
		mcpTestBaseUrl: `${N8N_ORIGIN}/mcp-test`,
		variables: {},
	} as unknown as IWorkflowExecuteAdditionalData;
}
