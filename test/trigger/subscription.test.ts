import type { INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';
import { parseDeliveryEnvelope, toTriggerItem } from '../../nodes/BookingServiceTrigger/delivery.ts';
import { isSelectedEvent } from '../../nodes/shared/booking.ts';
import { bookingServiceApiRequest } from '../../nodes/shared/transport.ts';
import { fakeContext } from '../unit/fake-context.ts';
import { normaliseEventSelection, subscriptionDescription } from '../../nodes/BookingServiceTrigger/records.ts';
import { explainSubscribeFailure } from '../../nodes/BookingServiceTrigger/activationErrors.ts';
import { webhookUrlProblem } from '../../nodes/shared/setupTexts.ts';

const node = {
	id: 'n1',
	name: 'Booking Service Trigger',
	type: 't',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;

describe('event selection', () => {
	it('sends * alone when chosen, otherwise the distinct kinds in a fixed order', () => {
		expect(normaliseEventSelection(['booking.created', '*', 'booking.cancelled'])).toEqual(['*']);
		expect(normaliseEventSelection(['booking.no_show', 'booking.created', 'booking.no_show'])).toEqual([
			'booking.created',
			'booking.no_show',
		]);
		expect(normaliseEventSelection(undefined)).toEqual([]);
		expect(normaliseEventSelection(['booking.created', 7])).toEqual(['booking.created']);
	});

	it('lets * through every kind, also ones added later, and specific selections only their own', () => {
		expect(isSelectedEvent(['*'], 'booking.paid')).toBe(true);
		expect(isSelectedEvent(['booking.created'], 'booking.created')).toBe(true);
		expect(isSelectedEvent(['booking.created'], 'booking.paid')).toBe(false);
	});
});

describe('subscriptionDescription', () => {
	const at = new Date('2026-03-02T09:15:42Z');
	const workflow = { id: 'wf42', name: 'Follow-ups' };

	it('names the workflow (name and id), the node and the time, and marks the Test URL', () => {
		expect(subscriptionDescription(workflow, node, false, at)).toBe(
			'n8n: Follow-ups – Booking Service Trigger – workflow wf42, 2026-03-02T09:15Z',
		);
		expect(subscriptionDescription(workflow, node, true, at)).toBe(
			'n8n: Follow-ups – Booking Service Trigger (test URL) – workflow wf42, 2026-03-02T09:15Z',
		);
		expect(subscriptionDescription({ id: 'wf42', name: '  ' }, node, false, at)).toBe(
			'n8n: unnamed workflow – Booking Service Trigger – workflow wf42, 2026-03-02T09:15Z',
		);
	});

	it('stays within the service’s 200 characters, shortening the workflow name', () => {
		const description = subscriptionDescription({ id: 'wf42', name: 'x'.repeat(500) }, node, true, at);
		expect(description).toHaveLength(200);
		expect(description.startsWith('n8n: xxx')).toBe(true);
		expect(description.endsWith('x… – Booking Service Trigger (test URL) – workflow wf42, 2026-03-02T09:15Z')).toBe(true);
	});
});

describe('webhookUrlProblem', () => {
	it.each([
		['http://n8n.example.com/webhook/x', /http/],
		['https://localhost:5678/webhook/x', /only reachable/],
		['https://n8n.local/webhook/x', /only reachable/],
		['https://n8n/webhook/x', /only reachable/],
		['https://127.0.0.1/webhook/x', /private or reserved/],
		['https://10.1.2.3/webhook/x', /private or reserved/],
		['https://172.20.0.5/webhook/x', /private or reserved/],
		['https://192.168.1.10/webhook/x', /private or reserved/],
		['https://169.254.169.254/webhook/x', /private or reserved/],
		['https://[::1]/webhook/x', /private or reserved/],
		['https://[fd00::1]/webhook/x', /private or reserved/],
		['not a url', /not a valid URL/],
	])('%s', (url, problem) => {
		expect(webhookUrlProblem(url)).toMatch(problem);
	});

	it('finds nothing wrong with a public https URL', () => {
		expect(webhookUrlProblem('https://n8n.example.com/webhook/abc/webhook')).toBeUndefined();
		expect(webhookUrlProblem('https://8.8.8.8/webhook/abc/webhook')).toBeUndefined();
	});
});

function serviceError(
	httpCode: string,
	message: string,
	serviceErrorCode?: string,
	serviceErrorDetails?: Array<{ field?: string; message: string }>,
): NodeApiError {
	const error = new NodeApiError(node, { message, httpCode }, { message, httpCode, description: 'from the transport' });
	if (serviceErrorCode) error.context.serviceErrorCode = serviceErrorCode;
	if (serviceErrorDetails) error.context.serviceErrorDetails = serviceErrorDetails;
	return error;
}

describe('explainSubscribeFailure', () => {
	it('explains a refused URL with test vs production URLs, WEBHOOK_URL and tunnels', () => {
		const error = explainSubscribeFailure(
			node,
			serviceError('400', 'The service rejected the request: url: must use https', 'validation_failed'),
			'http://localhost:5678/webhook-test/abc/webhook',
		);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain(
			"refused this trigger's webhook URL http://localhost:5678/webhook-test/abc/webhook",
		);
		expect(error.description).toMatch(/Test URL.*Production URL.*WEBHOOK_URL.*tunnel/s);
		expect(error.httpCode).toBe('400');
	});

	it('recognises the subscription limit from the service’s message', () => {
		const error = explainSubscribeFailure(
			node,
			serviceError('400', 'An account can have at most 25 webhook subscriptions.', 'bad_request'),
			'https://n8n.example.com/webhook/abc/webhook',
		);
		expect(error.message).toBe('The Booking Service account already has the maximum of 25 webhook subscriptions');
	});

	it('keeps the transport’s explanation for anything else, and adds a URL warning when the URL will not work', () => {
		const forbidden = explainSubscribeFailure(
			node,
			serviceError('403', 'The API key lacks the "webhooks:manage" permission this operation needs'),
			'https://n8n.example.com/webhook/abc/webhook',
		);
		expect(forbidden.message).toBe(
			'Could not subscribe to Booking Service events: The API key lacks the "webhooks:manage" permission this operation needs',
		);
		expect(forbidden.description).toBe('from the transport');

		const down = explainSubscribeFailure(
			node,
			serviceError('500', 'The service failed'),
			'http://localhost:5678/webhook/abc/webhook',
		);
		expect(down.description).toMatch(/from the transport.*will not work.*WEBHOOK_URL/s);
	});

	it('blames the URL when the details name the url field, with the service’s reason, whatever the message says', () => {
		const error = explainSubscribeFailure(
			node,
			serviceError(
				'422',
				'The service rejected the request: target: must resolve to a public address',
				'validation_failed',
				[{ field: 'url', message: 'must resolve to a public address' }],
			),
			'https://n8n.example.com/webhook/abc/webhook',
		);
		expect(error.message).toBe(
			"The Booking Service refused this trigger's webhook URL https://n8n.example.com/webhook/abc/webhook: must resolve to a public address",
		);
		expect(error.description).toMatch(/Test URL.*Production URL.*WEBHOOK_URL.*tunnel/s);
		expect(error.httpCode).toBe('422');
	});

	it('prefers the local reason for a URL the details name, and reads nested field names', () => {
		const error = explainSubscribeFailure(
			node,
			serviceError('400', 'The service rejected the request: body.url: invalid', 'validation_failed', [
				{ field: 'body.url', message: 'invalid' },
			]),
			'http://localhost:5678/webhook/abc/webhook',
		);
		expect(error.message).toBe(
			"The Booking Service refused this trigger's webhook URL http://localhost:5678/webhook/abc/webhook: it uses http, and the service delivers only to https",
		);
	});

	it('does not blame the URL when the details name only other fields, even if the URL looks local', () => {
		const error = explainSubscribeFailure(
			node,
			serviceError('400', 'The service rejected the request: events: unknown event kind', 'validation_failed', [
				{ field: 'events', message: 'unknown event kind' },
			]),
			'http://localhost:5678/webhook/abc/webhook',
		);
		expect(error.message).toBe(
			'Could not subscribe to Booking Service events: The service rejected the request: events: unknown event kind',
		);
		expect(error.description).toMatch(/from the transport.*will not work.*WEBHOOK_URL/s);
	});

	it('falls back to the message text when the details name no field', () => {
		const details = [{ message: 'url must use https' }];
		const named = explainSubscribeFailure(
			node,
			serviceError('400', 'The service rejected the request: url must use https', 'validation_failed', details),
			'https://n8n.example.com/webhook/abc/webhook',
		);
		const unnamed = explainSubscribeFailure(
			node,
			serviceError('400', 'The service rejected the request: too long', 'validation_failed', [{ message: 'too long' }]),
			'https://n8n.example.com/webhook/abc/webhook',
		);
		expect(named.message).toBe(
			"The Booking Service refused this trigger's webhook URL https://n8n.example.com/webhook/abc/webhook",
		);
		expect(unnamed.message).toBe(
			'Could not subscribe to Booking Service events: The service rejected the request: too long',
		);
	});

	it('reads the details of a real transport error', async () => {
		const { context } = fakeContext(() => ({
			statusCode: 400,
			body: {
				error: {
					code: 'validation_failed',
					message: 'Invalid request.',
					details: [{ path: ['url'], reason: 'must be https' }],
				},
			},
		}));
		const failure = await bookingServiceApiRequest
			.call(context, { method: 'POST', path: '/webhooks', body: {} })
			.catch((error: unknown) => error);
		const error = explainSubscribeFailure(node, failure, 'https://n8n.example.com/webhook/abc/webhook');
		expect(error.message).toBe(
			"The Booking Service refused this trigger's webhook URL https://n8n.example.com/webhook/abc/webhook: must be https",
		);
	});
});

describe('delivery envelope', () => {
	const booking = { id: 'b1', start: '2026-01-01T10:00:00Z' };

	it('accepts the contract’s envelope and copies every other data field through', () => {
		const raw = JSON.stringify({
			id: 'evt_1',
			type: 'booking.rescheduled',
			createdAt: '2026-01-01T09:00:00.000Z',
			apiVersion: 'v1',
			data: { booking, previousStart: '2026-01-01T08:00:00Z', previous: { start: 'a', end: 'b' } },
		});
		const envelope = parseDeliveryEnvelope(Buffer.from(raw));
		if ('problem' in envelope) throw new Error(envelope.problem);
		expect(toTriggerItem(envelope, false)).toEqual({
			eventId: 'evt_1',
			eventType: 'booking.rescheduled',
			eventCreatedAt: '2026-01-01T09:00:00.000Z',
			booking,
			previousStart: '2026-01-01T08:00:00Z',
			previous: { start: 'a', end: 'b' },
		});
		expect(toTriggerItem(envelope, true).envelope).toEqual(JSON.parse(raw));
	});

	it('never lets a data field overwrite the item’s own fields or its prototype', () => {
		const raw = `{"id":"evt_1","type":"booking.created","data":{"booking":{"id":"b1"},"eventId":"forged","__proto__":{"polluted":true}}}`;
		const envelope = parseDeliveryEnvelope(raw);
		if ('problem' in envelope) throw new Error(envelope.problem);
		const item = toTriggerItem(envelope, false);
		expect(item.eventId).toBe('evt_1');
		expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
		expect((item as { polluted?: boolean }).polluted).toBeUndefined();
	});

	it.each([
		['not json', 'not JSON'],
		['[1]', 'not a JSON object'],
		['{"type":"booking.created","data":{"booking":{}}}', 'no usable event id'],
		[`{"id":"${'e'.repeat(201)}","type":"booking.created","data":{"booking":{}}}`, 'no usable event id'],
		['{"id":"evt_1","data":{"booking":{}}}', 'no event type'],
		['{"id":"evt_1","type":"booking.created","data":{}}', 'no data.booking'],
		['{"id":"evt_1","type":"booking.created","data":{"booking":[]}}', 'no data.booking'],
	])('refuses %s', (raw, problem) => {
		expect(parseDeliveryEnvelope(raw)).toEqual({ problem: expect.stringContaining(problem) });
	});
});
