/**
 * The credentials helper of the shared engine (see engine-common.ts): it hands nodes the caller's credential data and
 * applies the credential type's declarative `authenticate` the way n8n's own CredentialsHelper does.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';

import { n8nWorkflow, nodeTypeRegistry } from './engine-common.ts';

const { UnexpectedError } = n8nWorkflow;

/**
 * Hands nodes the caller's credential data and applies the credential type's declarative `authenticate` the way
 * n8n's own CredentialsHelper does: `=` expressions resolved with `$credentials` by the workflow's expression
 * engine, then merged into the request's headers / qs / body / auth.
 */
export class EngineCredentialsHelper extends n8nWorkflow.ICredentialsHelper {
	/** How many times a node read (in n8n: decrypted) a credential through this helper. */
	decryptions = 0;

	private readonly credentialsByType: Record<string, ICredentialDataDecryptedObject>;

	private readonly credentialTypes: Record<string, ICredentialType>;

	constructor(
		credentialsByType: Record<string, ICredentialDataDecryptedObject>,
		credentialTypes: Record<string, ICredentialType>,
	) {
		super();
		this.credentialsByType = credentialsByType;
		this.credentialTypes = credentialTypes;
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = this.credentialTypes[typeName]?.authenticate;
		if (authenticate === undefined) return requestOptions as IHttpRequestOptions;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		const authenticated = { ...requestOptions } as IHttpRequestOptions & Record<string, unknown>;
		for (const [target, entries] of Object.entries(authenticate.properties)) {
			const resolved: IDataObject = {};
			for (const [key, value] of Object.entries(entries as IDataObject)) {
				const resolve = (text: unknown) => resolveCredentialExpression(text, credentials, workflow, node);
				resolved[String(resolve(key))] = resolve(value) as IDataObject[string];
			}
			authenticated[target] = { ...(authenticated[target] as IDataObject | undefined), ...resolved };
		}
		return authenticated;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(_details: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		throw new UnexpectedError(`getCredentials(${type}) is not available outside n8n; nodes read getDecrypted`);
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_details: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		this.decryptions++;
		const data = this.credentialsByType[type];
		if (data === undefined) throw new UnexpectedError(`No credential data of type "${type}" was given`);
		// A copy: nodes and n8n may add fields (e.g. preAuthentication results) to what they get.
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes[type]?.properties ?? [];
	}
}

/** Resolves one `=`-prefixed value of a declarative credential definition, as n8n does, with `$credentials`. */
export function resolveCredentialExpression(
	value: unknown,
	credentials: ICredentialDataDecryptedObject,
	workflow?: Workflow,
	node?: INode,
): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	const expressionWorkflow =
		workflow ??
		new n8nWorkflow.Workflow({ nodes: [], connections: {}, active: false, nodeTypes: nodeTypeRegistry({}) });
	const expressionNode =
		node ?? ({ name: 'Credential', type: 'credential', typeVersion: 1, parameters: {} } as unknown as INode);
	return expressionWorkflow.expression.getSimpleParameterValue(
		expressionNode,
		value,
		'internal',
		{ $credentials: credentials },
		undefined,
		'',
	);
}
