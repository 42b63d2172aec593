// The assumptions (assumptions.ts) against a service's OpenAPI document: every difference that matters to the nodes,
// classified breaking (they would fail), new (the service offers something they do not) or info.
import { ERRORS, OPERATIONS, WEBHOOKS } from './assumptions.ts';
import type { Field, Operation } from './assumptions.ts';
import { compareField, placeOf } from './compare-fields.ts';
import type { Direction, Finding, FindingClass } from './compare-fields.ts';
import { operationKey } from './openapi-reader.ts';
import type { ApiDocument, DocumentOperation, Shape } from './openapi-reader.ts';

export type { Finding, FindingClass } from './compare-fields.ts';

const ORDER: Record<FindingClass, number> = { breaking: 0, new: 1, info: 2 };

class Findings {
	readonly #byKey = new Map<string, Finding>();

	/** A reporter for one place in the document: findings named after a component list every place they came from. */
	at(where: string) {
		return (found: FindingClass, item: string, message: string) => {
			const key = `${found}\n${item}\n${message}`;
			const finding = this.#byKey.get(key) ?? { class: found, item, message, where: [] };
			if (where !== '' && !item.startsWith(where) && !finding.where.includes(where)) finding.where.push(where);
			this.#byKey.set(key, finding);
		};
	}

	sorted(): Finding[] {
		return [...this.#byKey.values()].sort(
			(a, b) => ORDER[a.class] - ORDER[b.class] || a.item.localeCompare(b.item) || a.message.localeCompare(b.message),
		);
	}
}

export function compareWithAssumptions(document: ApiDocument): Finding[] {
	const findings = new Findings();
	const general = findings.at('');
	if (!document.openapi.startsWith('3.1'))
		general('info', 'openapi', `the document is OpenAPI ${document.openapi}; the contract promises 3.1`);
	if (!/^1\./.test(document.version))
		general('info', 'info.version', `the document is version ${document.version}; the nodes were written against 1.x`);
	if (!document.hasBearerAuth)
		general('breaking', 'bearer authentication', 'the document no longer describes it; the credential sends "Authorization: Bearer <API key>"');

	for (const [key, assumed] of Object.entries(OPERATIONS)) {
		const [method, path] = key.split(' ');
		const operation = document.operations.get(operationKey(method, path));
		if (operation === undefined) general('breaking', key, `is gone from the document; used by ${assumed.usedBy}`);
		else compareOperation(key, assumed, operation, findings);
	}
	const assumedKeys = new Set(Object.keys(OPERATIONS).map((key) => operationKey(...(key.split(' ') as [string, string]))));
	for (const [key, operation] of document.operations) {
		if (!assumedKeys.has(key)) general('new', operation.key, 'is an operation the nodes do not offer yet');
	}

	compareWebhooks(document, findings);
	compareErrors(document, findings);
	return findings.sorted();
}

function compareOperation(key: string, assumed: Operation, operation: DocumentOperation, findings: Findings): void {
	const report = findings.at(key);
	const documentedScope = operation.scopes?.join(' and ') ?? null;
	if (operation.scopes !== undefined && documentedScope !== assumed.scope) {
		report(
			'breaking',
			`${key} scope`,
			`now needs ${documentedScope ?? 'no scope'}; the nodes ${assumed.scope === null ? 'expect any key to do' : `tell users it needs ${assumed.scope}`}`,
		);
	}
	const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
	Object.entries(assumed.path ?? {}).forEach(([name, field], index) => {
		const documented = pathParameters[index];
		if (documented !== undefined) compareField('request', { name: `${key} path ${name}`, childScope: key }, field, documented.schema, report);
	});
	for (const where of ['query', 'header'] as const) {
		const fields = (where === 'query' ? assumed.query : assumed.headers) ?? {};
		const normalise = (name: string) => (where === 'header' ? name.toLowerCase() : name);
		const documented = new Map(operation.parameters.filter((parameter) => parameter.in === where).map((parameter) => [normalise(parameter.name), parameter]));
		for (const [name, field] of Object.entries(fields)) {
			const parameter = documented.get(normalise(name));
			const item = `${key} ${where} ${name}`;
			if (parameter === undefined) {
				report('breaking', item, 'is gone; the nodes send it');
				continue;
			}
			if (parameter.required && !field.required) report('breaking', item, 'is now required; the nodes send it only when it is set');
			compareField('request', { name: item, childScope: item }, field, parameter.schema, report);
		}
		for (const [name, parameter] of documented) {
			if (Object.keys(fields).some((assumedName) => normalise(assumedName) === name)) continue;
			const item = `${key} ${where} ${parameter.name}`;
			if (parameter.required) report('breaking', item, 'is a new required parameter; the nodes never send it');
			else report('new', item, 'is a new optional parameter the nodes do not offer yet');
		}
	}
	compareBody(key, assumed, operation, report);
	if (assumed.response !== undefined) {
		if (operation.response === undefined) report('breaking', `${key} response`, 'no longer describes a JSON answer; the nodes read it');
		else compareRoot('response', `${key} response`, assumed.response, operation.response, report);
	}
}

function compareBody(
	key: string,
	assumed: Operation,
	operation: DocumentOperation,
	report: ReturnType<Findings['at']>,
): void {
	const item = `${key} body`;
	if (assumed.body === undefined) {
		if (operation.body?.required) report('breaking', item, 'is now required; the nodes send no body');
		return;
	}
	if (operation.body?.json === undefined) {
		report('breaking', item, 'the document no longer describes a JSON body; the nodes send one');
		return;
	}
	compareRoot('request', item, { type: 'object', properties: assumed.body }, operation.body.json, report);
}

/** An answer or body as a whole: named after its component, or after the operation when it is written inline. */
function compareRoot(direction: Direction, item: string, assumed: Field, shape: Shape, report: ReturnType<Findings['at']>) {
	const scope = direction === 'response' && shape.ref !== undefined ? shape.ref : `${item} `;
	compareField(direction, { name: item, childScope: scope }, assumed, shape, report);
}

function compareWebhooks(document: ApiDocument, findings: Findings): void {
	const unread = new Set<string>();
	for (const kind of WEBHOOKS.kinds) {
		const item = `webhook ${kind}`;
		const report = findings.at(item);
		const delivery = document.webhooks.get(kind);
		if (delivery === undefined) {
			report('breaking', item, 'is no longer described; the triggers offer this event');
			continue;
		}
		const headers = new Map(delivery.parameters.filter((parameter) => parameter.in === 'header').map((parameter) => [parameter.name.toLowerCase(), parameter]));
		for (const [name, field] of Object.entries(WEBHOOKS.headers)) {
			const header = headers.get(name.toLowerCase());
			if (header === undefined) report('breaking', `${item} header ${name}`, 'is gone; the trigger verifies every delivery with it');
			else compareField('response', placeOf('response', `${item} header `, name, undefined), field, header.schema, report);
			headers.delete(name.toLowerCase());
		}
		for (const header of headers.values()) unread.add(header.name);
		if (delivery.body?.json === undefined) report('breaking', `${item} body`, 'is no longer described; the trigger reads it');
		else compareRoot('response', `${item} body`, WEBHOOKS.body, delivery.body.json, report);
	}
	for (const [kind] of document.webhooks) {
		if (!WEBHOOKS.kinds.includes(kind))
			findings.at(`webhook ${kind}`)('new', `webhook ${kind}`, 'is an event kind the triggers do not offer yet (All Events receives it)');
	}
	if (unread.size > 0)
		findings.at('')('info', 'webhook headers', `deliveries also carry ${[...unread].sort().join(', ')}; the trigger does not read them`);
}

function compareErrors(document: ApiDocument, findings: Findings): void {
	const report = findings.at('');
	const operations = [...document.operations.values()];
	const envelope = operations.find((operation) => operation.errorBody !== undefined)?.errorBody;
	if (envelope === undefined) {
		report('info', 'error envelope', 'no operation describes its error answers; the nodes read { error: { code, message } }');
	} else {
		compareRoot('response', 'error envelope', ERRORS.envelope, envelope, report);
		const documentedCodes = envelope.properties?.get('error')?.properties?.get('code')?.enum;
		const handled = [...ERRORS.explainedCodes, ...Object.keys(ERRORS.byStatus)];
		if (documentedCodes === undefined) {
			report('info', 'error codes', `the document lists no error codes; the nodes explain ${ERRORS.explainedCodes.join(', ')}`);
		} else {
			for (const code of documentedCodes.filter((code) => !handled.includes(code)))
				report('new', `error code ${code}`, 'has no explanation of its own in the nodes yet (users see the service\'s message)');
			for (const code of ERRORS.explainedCodes.filter((code) => !documentedCodes.includes(code)))
				report('info', `error code ${code}`, 'is no longer listed; the nodes still explain it');
		}
	}
	const header = ERRORS.rateLimitHeader.toLowerCase();
	if (!operations.some((operation) => operation.rateLimitHeaders.includes(header)))
		report('info', `429 ${ERRORS.rateLimitHeader}`, 'no 429 answer declares it; the nodes wait as long as it says');
}
