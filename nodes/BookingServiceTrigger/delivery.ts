// Reads a verified delivery body and shapes the trigger's item: eventId, eventType, eventCreatedAt, booking, and every
// other key of `data` copied through (the contract does not name them, e.g. a reschedule's previous start and end).
import type { IDataObject } from 'n8n-workflow';

export interface DeliveryEnvelope {
	id: string;
	type: string;
	createdAt: unknown;
	data: IDataObject & { booking: IDataObject };
	/** The whole body as parsed, for "Include Full Envelope". */
	body: IDataObject;
}

/** Long enough for any real id, short enough that a hostile body cannot bloat the duplicate store. */
const MAX_EVENT_ID_LENGTH = 200;

function isObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body was already verified, so it is the service's. */
export function parseDeliveryEnvelope(rawBody: Buffer | string): DeliveryEnvelope | { problem: string } {
	let body: unknown;
	try {
		body = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
	} catch {
		return { problem: 'The body is not JSON' };
	}
	if (!isObject(body)) return { problem: 'The body is not a JSON object' };
	const { id, type, data } = body;
	if (typeof id !== 'string' || id === '' || id.length > MAX_EVENT_ID_LENGTH) {
		return { problem: 'The body has no usable event id' };
	}
	if (typeof type !== 'string' || type === '') return { problem: 'The body has no event type' };
	if (!isObject(data) || !isObject(data.booking)) return { problem: 'The body has no data.booking object' };
	return { id, type, createdAt: body.createdAt, data: data as DeliveryEnvelope['data'], body };
}

const OWN_KEYS = new Set(['eventId', 'eventType', 'eventCreatedAt', 'booking', 'envelope']);

export function toTriggerItem(envelope: DeliveryEnvelope, includeEnvelope: boolean): IDataObject {
	// Built with fromEntries: a key such as "__proto__" in the body stays a plain property.
	return Object.fromEntries([
		['eventId', envelope.id],
		['eventType', envelope.type],
		['eventCreatedAt', envelope.createdAt],
		['booking', envelope.data.booking],
		...Object.entries(envelope.data).filter(([key]) => !OWN_KEYS.has(key)),
		...(includeEnvelope ? [['envelope', envelope.body]] : []),
	]) as IDataObject;
}
