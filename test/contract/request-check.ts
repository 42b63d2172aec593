// Holds requests recorded on the wire (recorder.ts) against the assumptions: every operation, parameter, header and
// body field must be listed there and its value within the stated type, values and limits. Also names every item
// the requests used, so a test can find assumptions no request needs any more.
import { OPERATIONS } from './assumptions.ts';
import type { Field } from './assumptions.ts';
import type { RecordedRequest } from './recorder.ts';

/** Set on every request by n8n's HTTP helper or the transport (Authorization was dropped by the recorder). */
const TRANSPORT_HEADERS = new Set(['accept', 'accept-encoding', 'content-type', 'user-agent']);

const FORMATS: Record<NonNullable<Field['format']>, (text: string) => boolean> = {
	'date-time': (text) => text.endsWith('Z') && !Number.isNaN(Date.parse(text)),
	date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text),
	email: (text) => /^[^@\s]+@[^@\s]+$/.test(text),
	uri: (text) => URL.canParse(text),
	uuid: (text) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text),
};

const templates = Object.keys(OPERATIONS).map((key) => {
	const [method, path] = key.split(' ');
	const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
	return { key, method, names, pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`) };
});

/** Every item the assumptions list, named as `checkRequests` names what it sees. */
export function assumedItems(): string[] {
	const items: string[] = [];
	const fields = (prefix: string, properties: Record<string, Field>) => {
		for (const [name, field] of Object.entries(properties)) {
			items.push(`${prefix}${name}`);
			if (field.properties) fields(`${prefix}${name}.`, field.properties);
		}
	};
	for (const [key, operation] of Object.entries(OPERATIONS)) {
		items.push(key);
		for (const name of Object.keys(operation.path ?? {})) items.push(`${key} path ${name}`);
		for (const name of Object.keys(operation.query ?? {})) items.push(`${key} query ${name}`);
		for (const name of Object.keys(operation.headers ?? {})) items.push(`${key} header ${name}`);
		fields(`${key} body `, operation.body ?? {});
	}
	return items;
}

export function checkRequests(requests: RecordedRequest[]): { problems: string[]; used: Set<string> } {
	const problems: string[] = [];
	const used = new Set<string>();
	for (const request of requests) {
		const template = templates.find((candidate) => candidate.method === request.method && candidate.pattern.test(request.path));
		if (template === undefined) {
			problems.push(`${request.method} ${request.path}: an operation the assumptions do not list`);
			continue;
		}
		const { key } = template;
		const operation = OPERATIONS[key];
		used.add(key);
		const values = template.pattern.exec(request.path)!.slice(1);
		template.names.forEach((name, index) => {
			used.add(`${key} path ${name}`);
			problems.push(...valueProblems(`${key} path ${name}`, operation.path?.[name], decodeURIComponent(values[index]), true));
		});

		const query = operation.query ?? {};
		const seen = new Set<string>();
		for (const [name, value] of request.query) {
			if (seen.has(name)) problems.push(`${key} query ${name}: sent twice`);
			seen.add(name);
			used.add(`${key} query ${name}`);
			problems.push(...valueProblems(`${key} query ${name}`, query[name], value, true));
		}
		for (const [name, field] of Object.entries(query))
			if (field.required && !seen.has(name)) problems.push(`${key} query ${name}: listed as always sent, but missing`);

		const headers = operation.headers ?? {};
		for (const [name, value] of Object.entries(request.headers)) {
			if (TRANSPORT_HEADERS.has(name)) continue;
			const listed = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
			used.add(`${key} header ${listed ?? name}`);
			problems.push(...valueProblems(`${key} header ${listed ?? name}`, listed === undefined ? undefined : headers[listed], value, true));
		}
		for (const [name, field] of Object.entries(headers))
			if (field.required && request.headers[name.toLowerCase()] === undefined) problems.push(`${key} header ${name}: listed as always sent, but missing`);

		if (operation.body === undefined) {
			if (request.body !== undefined) problems.push(`${key}: sends a body the assumptions do not list`);
		} else {
			const body: Field = { type: 'object', required: true, properties: operation.body };
			problems.push(...valueProblems(`${key} body`, body, request.body, false, used));
		}
	}
	return { problems, used };
}

function valueProblems(item: string, field: Field | undefined, value: unknown, fromText: boolean, used?: Set<string>): string[] {
	if (field === undefined) return [`${item}: sent, but the assumptions do not list it`];
	const problem = (text: string) => [`${item}: ${text} (sent ${JSON.stringify(value).slice(0, 80)})`];
	const types = typeof field.type === 'string' ? [field.type] : field.type;
	const number = typeof value === 'string' && fromText ? Number(value) : value;
	const typeOf = (candidate: unknown): string =>
		Array.isArray(candidate) ? 'array' : Number.isInteger(candidate) ? 'integer' : typeof candidate;
	const actual = fromText && types.includes('integer') && /^-?\d+$/.test(String(value)) ? 'integer' : typeOf(value);
	if (!types.some((type) => type === actual || (type === 'number' && actual === 'integer')))
		return problem(`is ${actual}; the assumptions say ${types.join(' or ')}`);
	const text = String(value);
	if (field.enum !== undefined && !field.enum.includes(text)) return problem(`is not one of ${field.enum.join(', ')}`);
	if (field.pattern !== undefined && !new RegExp(field.pattern).test(text)) return problem(`does not match ${field.pattern}`);
	if (field.format !== undefined && !FORMATS[field.format](text)) return problem(`is not a ${field.format}`);
	const size = typeof value === 'string' ? [...value].length : Array.isArray(value) ? value.length : undefined;
	if (actual === 'integer' && (Number(number) > (field.maximum ?? Infinity) || Number(number) < (field.minimum ?? -Infinity)))
		return problem(`is outside ${field.minimum ?? '…'}..${field.maximum ?? '…'}`);
	const [min, max] = Array.isArray(value) ? [field.minItems, field.maxItems] : [field.minLength, field.maxLength];
	if (size !== undefined && (size > (max ?? Infinity) || size < (min ?? 0))) return problem(`has ${size}, outside ${min ?? 0}..${max ?? '…'}`);
	if (Array.isArray(value) && field.items !== undefined)
		return value.flatMap((entry) => valueProblems(`${item}[]`, field.items, entry, false, used));
	if (field.properties === undefined || typeof value !== 'object' || value === null) return [];
	const prefix = item.endsWith(' body') ? `${item} ` : `${item}.`;
	const problems: string[] = [];
	for (const [name, entry] of Object.entries(value)) {
		used?.add(`${prefix}${name}`);
		problems.push(...valueProblems(`${prefix}${name}`, field.properties[name], entry, false, used));
	}
	for (const [name, entry] of Object.entries(field.properties))
		if (entry.required && !(name in value)) problems.push(`${prefix}${name}: listed as always sent, but missing`);
	return problems;
}
