/**
 * Signed webhook deliveries of a fixed size, made the way the contract describes (independently of the node's code):
 *
 *   body: { id, type, createdAt, apiVersion: 'v1', data: { booking } }   exactly DELIVERY_BYTES bytes of UTF-8
 *   Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>." + body, keyed with the subscription secret>
 *
 * The booking is a real one from the simulator, with booking-form answers and notes added until the body reaches
 * the size (a long intake form is what makes deliveries big in practice).
 */
import { createHmac, randomBytes } from 'node:crypto';

/** The "5 KB delivery". */
export const DELIVERY_BYTES = 5 * 1024;

export interface Delivery {
	eventId: string;
	body: Buffer;
	headers: Record<string, string>;
}

/** Event ids of one length, so every body of a template has the same size. */
export function newEventId(): string {
	return `evt_${randomBytes(12).toString('hex')}`;
}

/** Makes bodies of exactly `bytes` bytes for any event id from newEventId(). */
export function deliveryTemplate(booking: Record<string, unknown>, bytes = DELIVERY_BYTES): (eventId: string) => string {
	const make = (eventId: string, padded: Record<string, unknown>) =>
		JSON.stringify({
			id: eventId,
			type: 'booking.created',
			createdAt: new Date().toISOString(),
			apiVersion: 'v1',
			data: { booking: padded },
		});
	const answers = [...((booking.answers as unknown[] | undefined) ?? [])];
	const padded = { ...booking, answers, bookerNotes: '' };
	const probe = newEventId();
	for (let index = 1; Buffer.byteLength(make(probe, padded)) < bytes - 400; index++) {
		answers.push({
			questionId: `q${index}`,
			label: `Question ${index}: what should the host know before the call?`,
			labelI18n: { en: `Question ${index}: what should the host know before the call?` },
			value: `Answer ${index}: some context about the project, the team and the goals for this session.`,
		});
	}
	padded.bookerNotes = 'n'.repeat(bytes - Buffer.byteLength(make(probe, padded)));
	if (Buffer.byteLength(make(probe, padded)) !== bytes) throw new Error('could not pad the delivery to its size');
	return (eventId) => make(eventId, padded);
}

export function signDelivery(secret: string, body: Buffer, timestamp = Math.floor(Date.now() / 1000)): string {
	const mac = createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
	return `t=${timestamp},v1=${mac}`;
}

/** `count` deliveries with new event ids, signed now. Header names lower-cased, as Node hands them to n8n. */
export function makeDeliveries(template: (eventId: string) => string, secret: string, count: number): Delivery[] {
	return Array.from({ length: count }, () => {
		const eventId = newEventId();
		const body = Buffer.from(template(eventId), 'utf8');
		return {
			eventId,
			body,
			headers: { 'content-type': 'application/json', 'service-signature': signDelivery(secret, body) },
		};
	});
}

/** A booking from the simulator to build deliveries from: one with booking-form answers if there is one. */
export async function sampleBooking(control: <T>(method: string, path: string) => Promise<T>): Promise<Record<string, unknown>> {
	const { items } = await control<{ items: Array<Record<string, unknown>> }>('GET', '/bookings');
	const withAnswers = items.find((booking) => Array.isArray(booking.answers) && booking.answers.length > 0);
	const booking = withAnswers ?? items[0];
	if (booking === undefined) throw new Error('the simulator has no bookings');
	return booking;
}
