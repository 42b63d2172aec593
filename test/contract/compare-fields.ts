// One field of the assumptions against the same field of the document, in either direction: what the nodes send
// (request: the service must take it) or what they read (response: the service must still answer it).
import type { Field } from './shapes.ts';
import type { Shape } from './openapi-reader.ts';

export type FindingClass = 'breaking' | 'new' | 'info';

export interface Finding {
	class: FindingClass;
	/** The exact item: `GET /bookings query sort "-start"`, `Booking.start`, `webhook booking.paid`. */
	item: string;
	message: string;
	/** Where the item is used, when the item is named where the document defines it (a component). */
	where: string[];
}

export type Report = (found: FindingClass, item: string, message: string) => void;
export type Direction = 'request' | 'response';

const typesOf = (field: Field) => (typeof field.type === 'string' ? [field.type] : [...field.type]);
const fits = (type: string, among: Set<string> | string[]) =>
	[...among].includes(type) || (type === 'integer' && [...among].includes('number'));
const quoted = (values: Iterable<string>) => [...values].map((value) => `"${value}"`).join(', ');

/**
 * Where a field's own findings go, and where its children's. An answer's fields inside a component are named where
 * the component defines them (`Booking.start`), so a change to an object many operations return is told once; what
 * the nodes send is named by operation (`POST /bookings body booker.locale`).
 */
export interface Place {
	name: string;
	childScope: string;
}

/** `scope` ends in a space at an operation's root (`GET /bookings response `). */
export function placeOf(direction: Direction, scope: string, key: string, shape: Shape | undefined): Place {
	const name = key === '[]' || scope.endsWith(' ') ? `${scope}${key}` : `${scope}.${key}`;
	return { name, childScope: (direction === 'response' ? shape?.ref : undefined) ?? name };
}

export function compareField(
	direction: Direction,
	place: Place,
	assumed: Field,
	shape: Shape,
	report: Report,
): void {
	const { name } = place;
	const assumedTypes = typesOf(assumed);
	if (shape.types.size > 0) {
		const mismatch =
			direction === 'request'
				? assumedTypes.some((type) => !fits(type, shape.types))
				: [...shape.types].some((type) => !fits(type, assumedTypes));
		if (mismatch) {
			report(
				'breaking',
				name,
				direction === 'request'
					? `now takes ${[...shape.types].join(' or ')}; the nodes send ${assumedTypes.join(' or ')}`
					: `is now ${[...shape.types].join(' or ')}; the nodes read it as ${assumedTypes.join(' or ')}`,
			);
			return;
		}
	}
	if (direction === 'response' && shape.nullable && !assumed.nullable)
		report('breaking', name, 'may now be null; the nodes expect a value');
	compareEnum(direction, name, assumed, shape, report);
	if (direction === 'request') compareLimits(name, assumed, shape, report);
	if (assumed.items !== undefined && shape.items !== undefined)
		compareField(direction, placeOf(direction, name, '[]', shape.items), assumed.items, shape.items, report);
	if (assumed.properties !== undefined) compareObject(direction, place.childScope, assumed, shape, report);
}

function compareEnum(direction: Direction, name: string, assumed: Field, shape: Shape, report: Report): void {
	if (assumed.enum === undefined) return;
	if (shape.enum === undefined) {
		report('info', name, `the document lists no values; the nodes ${direction === 'request' ? 'send' : 'know'} ${quoted(assumed.enum)}`);
		return;
	}
	const documented = new Set(shape.enum);
	for (const value of assumed.enum.filter((value) => !documented.has(value))) {
		if (direction === 'request') report('breaking', `${name} "${value}"`, `no longer accepts "${value}"; the nodes offer it`);
		else report('info', `${name} "${value}"`, `no longer lists "${value}"; the nodes still handle it`);
	}
	for (const value of shape.enum.filter((value) => !assumed.enum!.includes(value))) {
		report(
			'new',
			`${name} "${value}"`,
			direction === 'request'
				? `now also accepts "${value}", which the nodes do not offer yet`
				: `may now be "${value}", which the nodes do not know yet`,
		);
	}
}

const LIMITS = [
	{ key: 'maxLength', upper: true, words: 'characters' },
	{ key: 'maximum', upper: true, words: '' },
	{ key: 'maxItems', upper: true, words: 'items' },
	{ key: 'minLength', upper: false, words: 'characters' },
	{ key: 'minimum', upper: false, words: '' },
	{ key: 'minItems', upper: false, words: 'items' },
] as const;

/** A stricter limit than the nodes check refuses what they let through; a looser one is worth knowing. */
function compareLimits(name: string, assumed: Field, shape: Shape, report: Report): void {
	for (const { key, upper, words } of LIMITS) {
		const ours = assumed[key];
		const theirs = shape[key];
		if (ours === undefined) continue;
		const unit = words === '' ? '' : ` ${words}`;
		const bound = upper ? 'at most' : 'at least';
		if (theirs === undefined) report('info', name, `the document states no ${key}; the nodes send ${bound} ${ours}${unit}`);
		else if (upper ? theirs < ours : theirs > ours)
			report('breaking', name, `now takes ${bound} ${theirs}${unit}; the nodes let through ${bound} ${ours}`);
		else if (theirs !== ours) report('info', name, `now takes ${bound} ${theirs}${unit}; the nodes still limit it to ${ours}`);
	}
	if (assumed.pattern !== undefined && shape.pattern !== assumed.pattern) {
		if (shape.pattern === undefined) report('info', name, `the document states no pattern; the nodes check ${assumed.pattern}`);
		else report('breaking', name, `must now match ${shape.pattern}; the nodes check ${assumed.pattern} before sending`);
	}
	if (assumed.format !== undefined && shape.format !== undefined && shape.format !== assumed.format)
		report('info', name, `is now format ${shape.format}; the nodes send ${assumed.format}`);
}

function compareObject(direction: Direction, scope: string, assumed: Field, shape: Shape, report: Report): void {
	const assumedFields = assumed.properties ?? {};
	if (shape.properties === undefined) {
		if (shape.types.has('object') || shape.types.size === 0) report('info', scope, 'the document declares no fields here');
		return;
	}
	for (const [key, field] of Object.entries(assumedFields)) {
		const documented = shape.properties.get(key);
		const place = placeOf(direction, scope, key, documented);
		if (documented === undefined) {
			report('breaking', place.name, direction === 'request' ? 'is gone; the nodes send it' : 'is gone; the nodes read it');
			continue;
		}
		if (direction === 'request' && shape.required.has(key) && !field.required)
			report('breaking', place.name, 'is now required; the nodes send it only when it is set');
		compareField(direction, place, field, documented, report);
	}
	for (const [key, documented] of shape.properties) {
		if (key in assumedFields) continue;
		const { name } = placeOf(direction, scope, key, documented);
		const required = shape.required.has(key);
		if (direction === 'request') {
			if (required) report('breaking', name, 'is a new required field; the nodes never send it');
			else report('new', name, 'is a new optional field the nodes do not offer yet');
		} else if (assumed.passThrough) report('info', name, 'is a field the nodes do not name; it reaches the output as the service sends it');
		else if (required) report('breaking', name, 'is a new required field; the node output would miss it');
		else report('new', name, 'is a new optional field the nodes do not read yet');
	}
}
