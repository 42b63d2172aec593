/**
 * Keeps the webhook signing secret out of the workflow's static data in the clear. Static data is stored as plain
 * JSON on the workflow row and travels with exports; anyone holding the secret could forge deliveries that start the
 * workflow.
 *
 * The secret is sealed with AES-256-GCM under a key derived by HKDF-SHA256 from the credential's API key, bound to
 * the workflow and node it belongs to:
 * - input key material: the API key. It is a long random token, so HKDF is the right tool; a password hash such as
 *   scrypt would add seconds of work per delivery and nothing in strength.
 * - salt: 16 random bytes per sealing, stored beside the ciphertext.
 * - info and additional authenticated data: a label with the workflow id and node id, so a sealed value copied into
 *   another workflow or node does not open.
 * Someone reading the workflow row therefore also needs the API key, which n8n keeps encrypted in its credential
 * store. When the credential's key changes the secret no longer opens: callers treat that as "no secret" and
 * subscribe again rather than fail.
 *
 * Format: `v1.<salt>.<iv>.<ciphertext>.<tag>`, each part base64url.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'crypto';

const FORMAT_VERSION = 'v1';
const SALT_BYTES = 16;
const IV_BYTES = 12; // the GCM standard nonce size
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** Where a sealed secret belongs; both parts go into the key derivation and the authenticated data. */
export interface SecretBinding {
	workflowId: string;
	nodeId: string;
}

function bindingLabel({ workflowId, nodeId }: SecretBinding): Buffer {
	return Buffer.from(`n8n-nodes-booking-service/webhook-secret/${FORMAT_VERSION}/${workflowId}/${nodeId}`, 'utf8');
}

function deriveKey(apiKey: string, salt: Buffer, label: Buffer): Buffer {
	return Buffer.from(hkdfSync('sha256', Buffer.from(apiKey, 'utf8'), salt, label, KEY_BYTES));
}

export function sealSecret(secret: string, apiKey: string, binding: SecretBinding): string {
	const label = bindingLabel(binding);
	const salt = randomBytes(SALT_BYTES);
	const iv = randomBytes(IV_BYTES);
	const cipher = createCipheriv('aes-256-gcm', deriveKey(apiKey, salt, label), iv, { authTagLength: TAG_BYTES });
	cipher.setAAD(label);
	const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
	return [FORMAT_VERSION, salt, iv, ciphertext, cipher.getAuthTag()]
		.map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
		.join('.');
}

/**
 * The secret, or undefined when the value is not a sealed secret, was sealed under another API key or for another
 * workflow or node, or was altered. Never throws: every one of those cases means "subscribe again".
 */
export function openSecret(sealed: unknown, apiKey: string, binding: SecretBinding): string | undefined {
	if (typeof sealed !== 'string') return undefined;
	const parts = sealed.split('.');
	if (parts.length !== 5 || parts[0] !== FORMAT_VERSION) return undefined;
	const [salt, iv, ciphertext, tag] = parts.slice(1).map((part) => Buffer.from(part, 'base64url'));
	if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return undefined;
	const label = bindingLabel(binding);
	try {
		const decipher = createDecipheriv('aes-256-gcm', deriveKey(apiKey, salt, label), iv, {
			authTagLength: TAG_BYTES,
		});
		decipher.setAAD(label);
		decipher.setAuthTag(tag);
		return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
	} catch {
		// GCM authentication failed: wrong key, wrong binding or tampered data.
		return undefined;
	}
}
