// Seals the webhook signing secret for static data, which travels with exports: AES-256-GCM under an HKDF-SHA256 key
// from the API key (a long random token: a password hash would add seconds per delivery and no strength), bound to
// workflow and node so a copied value does not open. Format `v1.<salt>.<iv>.<ciphertext>.<tag>`, base64url.
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

/** Never throws: a foreign, altered or unreadable value means "subscribe again". */
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
