// Reads the subset of OpenAPI 3.1 a service description uses (paths, parameters, JSON bodies and answers, webhooks,
// components with local `$ref`s) into plain shapes compare.ts can hold against the assumptions. Written by hand so
// the check has no dependency; anything it cannot read is a DocumentError, which the command reports as exit 2.

export class DocumentError extends Error {}

/** A schema with its `$ref`s, `allOf`, `oneOf`/`anyOf` and nullability folded into one description. */
export interface Shape {
	/** Empty when the schema declares no type. */
	types: Set<string>;
	nullable: boolean;
	enum?: string[];
	pattern?: string;
	format?: string;
	minimum?: number;
	maximum?: number;
	minLength?: number;
	maxLength?: number;
	minItems?: number;
	maxItems?: number;
	items?: Shape;
	properties?: Map<string, Shape>;
	required: Set<string>;
	/** The component it was defined as (`Booking`), so a change inside it is named once, where it is defined. */
	ref?: string;
}

export interface Parameter {
	name: string;
	in: string;
	required: boolean;
	schema: Shape;
}

export interface DocumentOperation {
	/** `POST /bookings/{id}/cancel`, path parameters as written in the document. */
	key: string;
	parameters: Parameter[];
	body?: { required: boolean; json?: Shape };
	/** The JSON of the first 2xx answer, when it has one. */
	response?: Shape;
	/** Headers the 429 answer declares, lower-cased. */
	rateLimitHeaders: string[];
	/** The first 4xx answer's JSON (the error envelope). */
	errorBody?: Shape;
	/** The scopes it needs, where the document says (`x-required-scope`, or scopes in its `security`). */
	scopes?: string[];
}

export interface ApiDocument {
	openapi: string;
	version: string;
	/** Keyed by `METHOD /path` with every path parameter written `{}`, so names do not matter. */
	operations: Map<string, DocumentOperation>;
	/** Webhook deliveries by event kind. */
	webhooks: Map<string, DocumentOperation>;
	hasBearerAuth: boolean;
}

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const MAX_DEPTH = 32;

const isObject = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

export const operationKey = (method: string, path: string) =>
	`${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;

export function readDocument(document: unknown): ApiDocument {
	if (!isObject(document)) throw new DocumentError('the answer is JSON but not an object');
	const openapi = document.openapi;
	if (typeof openapi !== 'string' || !openapi.startsWith('3.'))
		throw new DocumentError(`it is not an OpenAPI 3 document (openapi: ${JSON.stringify(openapi ?? null)})`);
	if (!isObject(document.paths)) throw new DocumentError('it has no "paths" object');
	const reader = new Reader(document);
	const info = isObject(document.info) ? document.info : {};
	const schemes = isObject(document.components) ? document.components.securitySchemes : undefined;
	return {
		openapi,
		version: typeof info.version === 'string' ? info.version : '(none)',
		operations: reader.pathItems(document.paths, (method, path) => operationKey(method, path)),
		webhooks: reader.pathItems(isObject(document.webhooks) ? document.webhooks : {}, (_method, kind) => kind),
		hasBearerAuth: Object.values(isObject(schemes) ? schemes : {})
			.map((scheme) => reader.resolve(scheme))
			.some((scheme) => scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer'),
	};
}

class Reader {
	readonly #document: Json;

	constructor(document: Json) {
		this.#document = document;
	}

	/** Follows local `$ref`s (`#/components/…`) to the object they name; `ref` is the last name on the way. */
	resolve(value: unknown, depth = 0): Json & { ref?: string } {
		if (!isObject(value)) return {};
		const pointer = value.$ref;
		if (typeof pointer !== 'string') return value;
		if (depth > MAX_DEPTH) throw new DocumentError(`its $ref ${pointer} never ends (a cycle)`);
		if (!pointer.startsWith('#/')) throw new DocumentError(`it refers outside itself ($ref ${pointer})`);
		let target: unknown = this.#document;
		for (const part of pointer.slice(2).split('/')) {
			const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
			target = isObject(target) ? target[key] : undefined;
		}
		if (!isObject(target)) throw new DocumentError(`its $ref ${pointer} points at nothing`);
		const { $ref: _, ...siblings } = value;
		const resolved = this.resolve(target, depth + 1);
		const name = /^#\/components\/schemas\/([^/]+)$/.exec(pointer)?.[1];
		return { ...resolved, ...siblings, ...(name === undefined ? {} : { ref: resolved.ref ?? name }) };
	}

	pathItems(items: Json, keyOf: (method: string, name: string) => string): Map<string, DocumentOperation> {
		const operations = new Map<string, DocumentOperation>();
		for (const [name, rawItem] of Object.entries(items)) {
			const item = this.resolve(rawItem);
			for (const method of METHODS) {
				if (!isObject(item[method])) continue;
				operations.set(keyOf(method, name), this.operation(`${method.toUpperCase()} ${name}`, item, item[method]));
			}
		}
		return operations;
	}

	operation(key: string, item: Json, operation: Json): DocumentOperation {
		const parameters = new Map<string, Parameter>();
		for (const raw of [...asArray(item.parameters), ...asArray(operation.parameters)]) {
			const parameter = this.resolve(raw);
			if (typeof parameter.name !== 'string' || typeof parameter.in !== 'string') continue;
			const where = parameter.in;
			const name = where === 'header' ? parameter.name.toLowerCase() : parameter.name;
			parameters.set(`${where} ${name}`, {
				name: parameter.name,
				in: where,
				required: parameter.required === true,
				schema: this.shape(parameter.schema),
			});
		}
		const body = this.resolve(operation.requestBody);
		const responses = this.resolve(operation.responses);
		const statuses = Object.keys(responses).sort();
		const answer = (status: string | undefined) => (status === undefined ? {} : this.resolve(responses[status]));
		const success = answer(statuses.find((status) => status.startsWith('2')));
		const failure = answer(statuses.find((status) => status.startsWith('4')));
		return {
			key,
			scopes: scopesOf(operation),
			parameters: [...parameters.values()],
			body: operation.requestBody === undefined ? undefined : { required: body.required === true, json: this.json(body) },
			response: this.json(success),
			rateLimitHeaders: Object.keys(this.resolve(answer('429').headers)).map((name) => name.toLowerCase()),
			errorBody: this.json(failure),
		};
	}

	/** The schema of an answer's or body's JSON content, if it declares one. */
	json(holder: Json): Shape | undefined {
		const content = this.resolve(holder.content);
		const type = Object.keys(content).find((name) => /^application\/(.+\+)?json/.test(name));
		return type === undefined ? undefined : this.shape(this.resolve(content[type]).schema);
	}

	/** `within`: the components being described around this one; a recursive schema is described once. */
	shape(raw: unknown, within: ReadonlySet<string> = new Set()): Shape {
		const schema = this.resolve(raw);
		const shape: Shape = { types: new Set(), nullable: false, required: new Set(), ref: schema.ref };
		const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
		for (const type of types.map(String)) {
			if (type === 'null') shape.nullable = true;
			else shape.types.add(type);
		}
		if (schema.ref !== undefined) {
			if (within.has(schema.ref)) return shape;
			within = new Set([...within, schema.ref]);
		}
		if (schema.nullable === true) shape.nullable = true;
		if (Array.isArray(schema.enum)) {
			if (schema.enum.includes(null)) shape.nullable = true;
			shape.enum = schema.enum.filter((value) => value !== null).map(String);
		}
		if (schema.const !== undefined) shape.enum = [String(schema.const)];
		for (const key of ['pattern', 'format'] as const) if (typeof schema[key] === 'string') shape[key] = schema[key];
		for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const)
			if (typeof schema[key] === 'number') shape[key] = schema[key];
		if (schema.items !== undefined) shape.items = this.shape(schema.items, within);
		if (isObject(schema.properties)) {
			shape.properties = new Map(
				Object.entries(schema.properties).map(([name, property]) => [name, this.shape(property, within)]),
			);
		}
		for (const name of asArray(schema.required)) shape.required.add(String(name));
		for (const part of asArray(schema.allOf)) merge(shape, this.shape(part, within), 'all');
		const variants = [...asArray(schema.oneOf), ...asArray(schema.anyOf)].map((part) => this.shape(part, within));
		const valued = variants.filter((variant) => variant.types.size > 0 || variant.properties !== undefined || variant.ref);
		if (variants.length > valued.length) shape.nullable = true;
		valued.forEach((variant, index) => merge(shape, variant, index === 0 ? 'all' : 'any'));
		if (valued.length === 1 && shape.ref === undefined) shape.ref = valued[0].ref;
		return shape;
	}
}

/**
 * Folds `from` into `into`. 'all' (allOf, or the first variant): everything adds up. 'any' (a further oneOf
 * variant, such as one kind of location): fields and values add up, but a field is required only if every variant
 * requires it.
 */
function merge(into: Shape, from: Shape, mode: 'all' | 'any'): void {
	for (const type of from.types) into.types.add(type);
	into.nullable ||= from.nullable;
	if (from.enum !== undefined) into.enum = [...new Set([...(into.enum ?? []), ...from.enum])];
	if (from.items !== undefined) into.items ??= from.items;
	if (from.properties !== undefined) {
		into.properties ??= new Map();
		for (const [name, property] of from.properties) {
			const existing = into.properties.get(name);
			if (existing === undefined) into.properties.set(name, property);
			else merge(existing, property, 'any');
		}
	}
	for (const key of ['pattern', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const)
		if (from[key] !== undefined) (into as unknown as Json)[key] ??= from[key];
	if (mode === 'all') for (const name of from.required) into.required.add(name);
	else for (const name of into.required) if (!from.required.has(name)) into.required.delete(name);
}

function scopesOf(operation: Json): string[] | undefined {
	const extension = operation['x-required-scope'];
	if (typeof extension === 'string') return [extension];
	if (extension === null) return [];
	const named = asArray(operation.security).flatMap((requirement) =>
		isObject(requirement) ? Object.values(requirement).flatMap((scopes) => asArray(scopes).map(String)) : [],
	);
	return named.length > 0 ? [...new Set(named)].sort() : undefined;
}

function asArray(value: unknown): unknown[] {
	return Array.isArray(value) ? value : [];
}
