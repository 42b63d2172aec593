/**
 * Signing secrets this process has already unsealed, so a delivery need not read the credential and unseal the
 * secret again: together about 150 µs here, and in n8n reading a credential also decrypts it, on every request.
 *
 * An entry is found only by the workflow and node the sealed value belongs to and the sealed value itself. A new
 * subscription comes with a newly sealed value (fresh salt), so it never finds the old one's secret, and the same
 * sealed value copied into another workflow or node finds nothing. `checkExists` never trusts this cache for the
 * current subscription: it opens the secret with the credential's current API key, so a changed key still leads to a
 * new subscription. Until then, deliveries are verified with the secret the service actually signs them with.
 *
 * The webhook side adds a secret as soon as it opens one (receive.ts). Only sealed values from the workflows' static
 * data can open, which no sender can add to, so the entries are bounded by the active triggers (each with its
 * current subscription and at most a few it replaced), and forged requests cannot push genuine secrets out unless
 * more triggers are active than this holds. Secrets stay in this Map: nothing here logs or returns them other than to the caller that asks with the sealed value.
 */
import type { SecretBinding } from './secretBox';
import { setAsNewest } from '../shared/setAsNewest';

/** How long a sealed secret that would not open is not tried again: a fixed credential is picked up after this. */
export const UNREADABLE_RETRY_MS = 60_000;

export class UnsealedSecretCache {
	readonly #secrets = new Map<string, string>();
	/** Sealed secrets that did not open with the credential, until when they are not tried again. */
	readonly #unreadableUntil = new Map<string, number>();
	readonly #maxEntries: number;

	constructor(maxEntries: number) {
		this.#maxEntries = maxEntries;
	}

	/**
	 * Whether this sealed value recently failed to open. While it is, a request claiming to be a delivery costs no
	 * credential read and no decryption: unauthenticated traffic cannot make n8n decrypt the credential over and over.
	 */
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

/**
 * This process's one cache: `webhook()` fills it, and activation reads it to recover the secret of a subscription
 * whose sealed value no longer opens because the credential's key changed, to seal it again (see retirement.ts).
 */
export const unsealedSecrets = new UnsealedSecretCache(SECRETS_KEPT_IN_MEMORY);
