// Credential reads that fail while a history says so (n8n could not decrypt the credential, its database was
// unreachable): the engine's credentials helper, patched once per copy of the engine module.
type EngineModule = typeof import('../../harness/engine.ts');

/** What a history exposes: how many reads fail from now on (each failure uses one). */
export interface CredentialFaults {
	credentialFailures: number;
}

// Each copy of the engine module has its own credentials helper class; each is patched once and reads the counter
// of the history running now.
let current: CredentialFaults | undefined;
const patched = new WeakSet<object>();

export function failCredentialReadsIn(engine: EngineModule, history: CredentialFaults): void {
	current = history;
	const prototype = engine.TestCredentialsHelper.prototype as { getDecrypted: (...args: never[]) => Promise<unknown> };
	if (patched.has(prototype)) return;
	patched.add(prototype);
	const read = prototype.getDecrypted;
	prototype.getDecrypted = async function (this: unknown, ...args: never[]) {
		if (current !== undefined && current.credentialFailures > 0) {
			current.credentialFailures -= 1;
			throw new Error('Could not decrypt the credential (model fault)');
		}
		return await read.apply(this, args);
	};
}
