/**
 * A stand-in for the n8n context the transport and parameter readers use, for unit tests of pure logic. Engine
 * tests use n8n's real contexts; this only records requests and answers them from a script.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	INode,
} from 'n8n-workflow';

export const TEST_API_KEY = 'bsk_0123456789abcdef0123456789abcdef01234567';

export const TEST_NODE: INode = {
	id: 'node-1',
	name: 'Booking Service',
	type: 'n8n-nodes-booking-service.bookingService',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export type Responder = (
	request: IHttpRequestOptions,
	index: number,
) => Partial<IN8nHttpFullResponse> | Error;

export interface FakeContext {
	context: IExecuteFunctions;
	requests: IHttpRequestOptions[];
}

export function fakeContext(
	responder: Responder,
	options: { baseUrl?: string; parameters?: IDataObject; timezone?: string } = {},
): FakeContext {
	const requests: IHttpRequestOptions[] = [];
	const context = {
		getNode: () => TEST_NODE,
		// The action node's context: it runs on items (the transport tells it from the triggers' contexts by this).
		getInputData: () => [{ json: {} }],
		getTimezone: () => options.timezone ?? 'UTC',
		getCredentials: async () => ({
			apiKey: TEST_API_KEY,
			baseUrl: options.baseUrl ?? 'https://api.example.com/v1/',
		}),
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => {
			let value: unknown = options.parameters ?? {};
			for (const part of name.split('.')) value = (value as IDataObject | undefined)?.[part];
			if (value !== undefined) return value;
			if (fallback !== undefined) return fallback;
			throw new Error(`Could not get parameter "${name}"`);
		},
		helpers: {
			httpRequestWithAuthentication: async (_type: string, request: IHttpRequestOptions) => {
				requests.push(request);
				const answer = responder(request, requests.length - 1);
				if (answer instanceof Error) throw answer;
				return { statusCode: 200, headers: {}, body: '', ...answer };
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, requests };
}

/** A page answer for list requests: `total` items named by position, cut into pages of the requested size. */
export function pagedResponder(total: number, pageSizeCap = 100): Responder {
	return (request) => {
		const offset = Number((request.qs?.cursor as string | undefined)?.replace('c', '') ?? 0);
		const size = Math.min(Number(request.qs?.limit), pageSizeCap);
		const items = Array.from(
			{ length: Math.max(0, Math.min(size, total - offset)) },
			(_, index) => ({
				id: `item-${offset + index}`,
			}),
		);
		const next = offset + items.length;
		return { statusCode: 200, body: { items, nextCursor: next < total ? `c${next}` : null } };
	};
}
