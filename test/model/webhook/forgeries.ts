// Requests an attacker can send to the Production URL: made up, captured and replayed as they were, captured and
// sent again under a new event id, or naming a real booking (any booking of the account, made before the workflow
// was published too) with a signature made from nothing. None of them may start a run the service did not cause.
import { randomBytes } from 'node:crypto';
import type { WebhookWorld } from './world.ts';

export const FORGERY_KINDS = ['made up', 'replayed', 'replayed under a new event id', 'real booking'] as const;
export type ForgeryKind = (typeof FORGERY_KINDS)[number];

const FACT_KINDS = ['booking.created', 'booking.cancelled', 'booking.no_show'] as const;

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const eventId = () => `evt_${hex(12)}`;
const signature = () => `t=${Math.floor(Date.now() / 1000)},v1=${hex(32)}`;

function envelope(id: string, type: string, booking: unknown): string {
	return JSON.stringify({ id, type, createdAt: new Date().toISOString(), apiVersion: 'v1', data: { booking } });
}

function headersOf(id: string, type: string, serviceSignature: string): Record<string, string> {
	return { 'Service-Signature': serviceSignature, 'Service-Event-Id': id, 'Service-Event-Type': type };
}

/** A forged request of `kind`, or undefined when there is nothing to base it on yet (no capture, no booking). */
export function forgery(world: WebhookWorld, kind: ForgeryKind, pick: number): { body: string; headers: Record<string, string> } | undefined {
	const type = FACT_KINDS[pick % FACT_KINDS.length];
	switch (kind) {
		case 'made up': {
			const id = eventId();
			return { body: envelope(id, type, { id: hex(12), status: 'confirmed' }), headers: headersOf(id, type, signature()) };
		}
		case 'replayed':
		case 'replayed under a new event id': {
			const captures = world.captured();
			if (captures.length === 0) return undefined;
			const capture = captures[pick % captures.length];
			const headers = {
				'Service-Signature': capture.headers['service-signature'],
				'Service-Event-Id': capture.headers['service-event-id'],
				'Service-Event-Type': capture.headers['service-event-type'],
			};
			if (kind === 'replayed') return { body: capture.body, headers };
			const id = eventId();
			const body = JSON.stringify({ ...(JSON.parse(capture.body) as object), id });
			return { body, headers: { ...headers, 'Service-Event-Id': id } };
		}
		case 'real booking': {
			const bookings = world.sim.control.bookings();
			if (bookings.length === 0) return undefined;
			const booking = bookings[pick % bookings.length];
			const id = eventId();
			return { body: envelope(id, type, booking), headers: headersOf(id, type, signature()) };
		}
	}
}
