/**
 * Signing secrets this process has already unsealed, so a delivery need not read the credential and unseal the
 * secret again: together about 150 µs here, and in n8n reading a credential also decrypts it, on every request.
 *
 * An entry is found only by the workflow and node the sealed value belongs to and the sealed value itself. A new
 * subscription comes with a newly sealed value (fresh salt), so it never finds the old one's secret, and the same
 * sealed value copied into another workflow or node finds nothing. Only `webhook()` reads this cache: `checkExists`
 * always opens the secret with the credential's current API key, so a changed key still leads to a new subscription.
 * Until then, deliveries are verified with the secret the service actually signs them with.
 *
 * Bounded to the triggers that received deliveries last. Secrets stay in this Map: nothing here logs or returns them
 * other than to the caller that asks with the sealed value.
 */
import type { SecretBinding } from './secretBox';
import { setAsNewest } from './setAsNewest';

export class UnsealedSecretCache {
	readonly #secrets = new Map<string, string>();
	readonly #maxEntries: number;

	constructor(maxEntries: number) {
		this.#maxEntries = maxEntries;
	}

	get(binding: SecretBinding, sealedSecret: string): string | undefined {
		const key = cacheKey(binding, sealedSecret);
		const secret = this.#secrets.get(key);
		// The trigger used last is the last to be evicted.
		if (secret !== undefined) setAsNewest(this.#secrets, key, secret, this.#maxEntries);
		return secret;
	}

	remember(binding: SecretBinding, sealedSecret: string, secret: string): void {
		setAsNewest(this.#secrets, cacheKey(binding, sealedSecret), secret, this.#maxEntries);
	}
}

/** JSON keeps the three parts apart whatever characters the ids contain. */
function cacheKey({ workflowId, nodeId }: SecretBinding, sealedSecret: string): string {
	return JSON.stringify([workflowId, nodeId, sealedSecret]);
}
