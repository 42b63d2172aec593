// The Booking Service accounts the workflow's credential can name, and what the user does in them: books, rotates
// the key (a new key of the same account), switches the credential to the other account's key and Base URL.
import type { Simulator } from '../../simulator/index.ts';
import { api } from '../../trigger/support.ts';
import { Publication } from './publication.ts';

export abstract class Accounts extends Publication {
	/** The accounts the credential can name; `account` is the one it names now. */
	readonly accounts: Simulator[];
	account = 0;
	readonly keys: string[];
	/** When the user switched the credential away from an account (the docs: its subscription's deliveries are refused). */
	readonly switches: Array<{ atMs: number; from: number }> = [];
	/** When each of main's activations began and ended: one under way at a switch read the credential from before it. */
	readonly activations: Array<{ startMs: number; endMs: number }> = [];
	/** Bookings made through the API, oldest first: what the commands change. */
	readonly bookings: string[] = [];
	/** Every subscription seen in an account, by id: the account it lives in, when it was made. */
	readonly subscriptionsSeen = new Map<string, { account: number; createdMs: number }>();

	constructor(accounts: Simulator[]) {
		super();
		this.accounts = accounts;
		this.keys = accounts.map((account) => account.apiKeys.readWrite);
	}

	/** The account the credential names now: where the user books and the node subscribes. */
	get sim(): Simulator {
		return this.accounts[this.account];
	}

	get key(): string {
		return this.keys[this.account];
	}

	/** Whether the credential names a rotated key of its account. */
	get rotated(): boolean {
		return this.key !== this.sim.apiKeys.readWrite;
	}

	/** Notes which account holds each subscription now (called around every step). */
	noteSubscriptions(): void {
		this.accounts.forEach((account, index) => {
			for (const subscription of account.control.webhooks()) {
				this.subscriptionsSeen.set(subscription.id, { account: index, createdMs: Date.parse(subscription.createdAt) });
			}
		});
	}

	/** Hands the credential as it is now to every running n8n process (n8n reads it fresh each time). */
	protected abstract setCredential(): void;

	/** The user rotates the API key: a new one of the same account into the credential, the old one revoked. */
	rotateKey(): void {
		const { key } = this.sim.control.createKey('readWrite');
		this.sim.control.revokeKey(this.key);
		this.keys[this.account] = key;
		this.setCredential();
	}

	/** The user edits the credential to the other account's key (and Base URL) while the workflow stays published. */
	switchAccount(): void {
		this.switches.push({ atMs: Date.now(), from: this.account });
		this.account = (this.account + 1) % this.accounts.length;
		this.setCredential();
	}

	async freeStarts(): Promise<string[]> {
		const eventTypeId = this.sim.control.eventType('intro-call').id;
		const from = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
		const to = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
		const { slots } = await api<{ slots: string[] }>(this.sim, 'GET', `/event-types/${eventTypeId}/slots?from=${from}&to=${to}`, undefined, this.key);
		return slots.reverse();
	}

	/** Books the latest free intro call (it stays live for days) in the credential's account; emits booking.created. */
	async book(): Promise<string> {
		const eventTypeId = this.sim.control.eventType('intro-call').id;
		const booked = new Set(this.sim.control.bookings().map((booking) => booking.start));
		const start = (await this.freeStarts()).find((candidate) => !booked.has(candidate));
		const booking = await api<{ id: string }>(
			this.sim,
			'POST',
			'/bookings',
			{ eventTypeId, start, booker: { name: 'Guest', email: `guest${this.bookings.length}@example.com`, timezone: 'Europe/Berlin' } },
			this.key,
		);
		this.bookings.push(booking.id);
		return booking.id;
	}
}
