// Secrets this process has unsealed, so a delivery need not read (in n8n: decrypt) the credential and unseal again.
// Keyed by workflow, node and sealed value (fresh salt per subscription); only static data's sealed values can open,
// which no sender can add to, so entries are bounded by the active triggers. checkExists never trusts this cache.
import type { SecretBinding } from './secretBox';
import { setAsNewest } from '../shared/setAsNewest';

/** How long a sealed secret that would not open is not tried again: a fixed credential is picked up after this. */
export const UNREADABLE_RETRY_MS = 60_000;

export class UnsealedSecretCache {
	readonly #secrets = new Map<string, string>();
	readonly #unreadableUntil = new Map<string, number>();
	readonly #maxEntries: number;

	constructor(maxEntries: number) {
		this.#maxEntries = maxEntries;
	}

	/** While it is, a forged delivery cannot make n8n decrypt the credential over and over. */
	isKnownUnreadable(binding: SecretBinding, sealedSecret: string, nowMs: number): boolean {
		const key = cacheKey(binding, sealedSecret);
		const until = this.#unreadableUntil.get(key);
		if (until === undefined) return false;
		if (until > nowMs) return true;
		this.#unreadableUntil.delete(key);
		return false;
	}

	rememberUnreadable(binding: SecretBinding, sealedSecret: string, nowMs: number): void {
		setAsNewest(this.#unreadableUntil, cacheKey(binding, sealedSecret), nowMs + UNREADABLE_RETRY_MS, this.#maxEntries);
	}

	/** Entries held now, for the test that proves both maps stay bounded. */
	get size(): { secrets: number; unreadable: number } {
		return { secrets: this.#secrets.size, unreadable: this.#unreadableUntil.size };
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

/** How many secrets this process keeps, the ones used last: far more than the subscriptions of any real n8n. */
export const SECRETS_KEPT_IN_MEMORY = 5_000;

/** `webhook()` fills it; activation reads it to reseal a secret whose key changed (retirement.ts). */
export const unsealedSecrets = new UnsealedSecretCache(SECRETS_KEPT_IN_MEMORY);
