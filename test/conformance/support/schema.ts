/**
 * A small JSON Schema checker (the subset /v1/openapi.json uses) so every response the tests see
 * can be held against the served document: required fields present, types and enums right, and no
 * field the contract does not list.
 */
import { expect } from 'vitest';
import type { Simulator } from '../../simulator/index.ts';
import { call } from './client.ts';

type Schema = Record<string, any>;

export interface SchemaChecker {
	/** Problems of `value` against `#/components/schemas/<name>`; empty when it conforms. */
	problems(name: string, value: unknown): string[];
	/** Asserts that `value` conforms. */
	expect(name: string, value: unknown): void;
	document: Schema;
}

export async function loadSchemas(sim: Simulator): Promise<SchemaChecker> {
	const response = await call(sim, 'GET', '/openapi.json', { key: null });
	expect(response.status).toBe(200);
	const document: Schema = response.body;
	const resolve = (reference: string): Schema => {
		const name = reference.replace('#/components/schemas/', '');
		const schema = document.components.schemas[name];
		if (schema === undefined) throw new Error(`unknown schema ${reference}`);
		return schema;
	};
	const problems = (name: string, value: unknown) =>
		check(resolve(`#/components/schemas/${name}`), value, name, resolve);
	return {
		document,
		problems,
		expect: (name, value) =>
			expect(problems(name, value), `${name}: ${JSON.stringify(value)}`).toEqual([]),
	};
}

function typeOf(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
	return typeof value;
}

function check(
	schema: Schema,
	value: unknown,
	path: string,
	resolve: (reference: string) => Schema,
): string[] {
	if (schema.$ref !== undefined) return check(resolve(schema.$ref), value, path, resolve);
	if (schema.oneOf !== undefined) {
		const matching = (schema.oneOf as Schema[]).filter(
			(option) => check(option, value, path, resolve).length === 0,
		);
		return matching.length === 1 ? [] : [`${path}: matches ${matching.length} of oneOf`];
	}
	const problems: string[] = [];
	if (schema.type !== undefined) {
		const allowed: string[] = Array.isArray(schema.type) ? schema.type : [schema.type];
		const actual = typeOf(value);
		if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) {
			return [`${path}: is ${actual}, expected ${allowed.join('|')}`];
		}
	}
	if (schema.const !== undefined && value !== schema.const)
		problems.push(`${path}: is not ${schema.const}`);
	if (schema.enum !== undefined && !schema.enum.includes(value))
		problems.push(`${path}: ${String(value)} not in enum`);
	if (typeof value === 'string') {
		if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
			problems.push(`${path}: pattern`);
		if (schema.minLength !== undefined && [...value].length < schema.minLength)
			problems.push(`${path}: too short`);
		if (schema.maxLength !== undefined && [...value].length > schema.maxLength)
			problems.push(`${path}: too long`);
		if (schema.format === 'date-time' && Number.isNaN(Date.parse(value)))
			problems.push(`${path}: not a date-time`);
	}
	if (typeof value === 'number') {
		if (schema.minimum !== undefined && value < schema.minimum)
			problems.push(`${path}: below minimum`);
		if (schema.maximum !== undefined && value > schema.maximum)
			problems.push(`${path}: above maximum`);
	}
	if (Array.isArray(value)) {
		if (schema.minItems !== undefined && value.length < schema.minItems)
			problems.push(`${path}: too few items`);
		if (schema.maxItems !== undefined && value.length > schema.maxItems)
			problems.push(`${path}: too many items`);
		if (schema.items !== undefined) {
			value.forEach((item, index) =>
				problems.push(...check(schema.items, item, `${path}[${index}]`, resolve)),
			);
		}
	}
	if (typeOf(value) === 'object') {
		const object = value as Record<string, unknown>;
		for (const name of schema.required ?? []) {
			if (!Object.hasOwn(object, name)) problems.push(`${path}.${name}: missing`);
		}
		for (const [name, inner] of Object.entries(object)) {
			const property = schema.properties?.[name];
			if (property === undefined) {
				if (schema.additionalProperties === false) problems.push(`${path}.${name}: not allowed`);
				continue;
			}
			problems.push(...check(property, inner, `${path}.${name}`, resolve));
		}
	}
	return problems;
}
