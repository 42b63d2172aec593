/**
 * The reference a builder reads, held to the nodes' descriptions: each operation of the Booking Service node has its
 * section in docs/booking-service-node.md naming every field and option the panel shows for it (nested collections
 * included), with its output and an example; each trigger's "Fields and options" section names every field and option
 * of that trigger. A field, option or operation added without its reference fails here. The docs links n8n opens from
 * the panel (each node's codex file, the credential's documentationUrl) open one of these pages, without a fragment.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { BookingServiceApi } from '../../credentials/BookingServiceApi.credentials.ts';
import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';
import { gitHubRepository } from '../package/release-check.ts';
import { markdownSections } from './markdown.ts';

const root = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

type Entry = INodeProperties | INodePropertyCollection | INodePropertyOptions;

/** Every display name a builder meets in a property: itself and, for collections, each entry at any depth. */
function displayNames(property: INodeProperties): string[] {
	if (property.type === 'notice') return [];
	const names = [property.displayName];
	const nested = (entries: Entry[]): void => {
		for (const entry of entries) {
			if ('type' in entry) names.push(...displayNames(entry as INodeProperties));
			else if ('values' in entry) {
				names.push(entry.displayName);
				nested(entry.values);
			}
		}
	};
	if (property.type === 'collection' || property.type === 'fixedCollection') nested((property.options ?? []) as Entry[]);
	return names;
}

function shownFor(property: INodeProperties, resource: string, operation: string): boolean {
	const show = property.displayOptions?.show;
	return (
		(show?.resource === undefined || show.resource.includes(resource)) &&
		(show?.operation === undefined || show.operation.includes(operation))
	);
}

function optionsOf(description: INodeTypeDescription, name: string, resource?: string): INodePropertyOptions[] {
	const property = description.properties.find(
		(candidate) => candidate.name === name && (resource === undefined || candidate.displayOptions?.show?.resource?.includes(resource)),
	);
	return (property?.options ?? []) as INodePropertyOptions[];
}

describe('docs/booking-service-node.md: every operation, with its fields, options, output and an example', () => {
	const description = new BookingService().description;
	const sections = markdownSections(read('docs/booking-service-node.md'));
	const operations = optionsOf(description, 'resource').flatMap((resource) =>
		optionsOf(description, 'operation', String(resource.value)).map((operation) => ({ resource, operation })),
	);

	it('covers the ten operations the node offers', () => {
		expect(operations.map(({ resource, operation }) => `${resource.name} → ${operation.name}`)).toHaveLength(10);
	});

	for (const { resource, operation } of operations) {
		const title = `${resource.name} → ${operation.name}`;
		it(`${title}: a section naming each field and option, the output and an example`, () => {
			const section = sections.find((candidate) => candidate.heading === title);
			expect(section, `a "### ${title}" heading`).toBeDefined();
			const fields = description.properties
				.filter((property) => !['resource', 'operation'].includes(property.name))
				.filter((property) => shownFor(property, String(resource.value), String(operation.value)))
				.flatMap(displayNames);
			expect(fields.length).toBeGreaterThan(0);
			const text = section!.text.replace(/\s+/g, ' ');
			const missing = fields.filter((name) => !text.includes(name));
			expect(missing, `named in "${title}"`).toEqual([]);
			expect(section!.text, 'says what the output is').toMatch(/\bOutput\b/);
			expect(section!.text, 'shows an example output').toMatch(/```json\n|`\{ "/);
		});
	}
});

describe('the triggers\' "Fields and options" sections', () => {
	const triggers = [
		{ page: 'docs/webhook-trigger.md', description: new BookingServiceTrigger().description },
		{ page: 'docs/polling-trigger.md', description: new BookingServicePollingTrigger().description },
	];
	for (const { page, description } of triggers) {
		it(`${page} names every field and option of ${description.displayName}, and each event`, () => {
			const section = markdownSections(read(page)).find((candidate) => candidate.heading === 'Fields and options');
			expect(section, `a "## Fields and options" heading in ${page}`).toBeDefined();
			const names = [
				...description.properties.flatMap(displayNames),
				...optionsOf(description, 'events').map((event) => event.name),
				...(description.polling ? ['Poll Times'] : []),
			];
			const text = section!.text.replace(/\s+/g, ' ');
			expect(names.filter((name) => !text.includes(name))).toEqual([]);
		});
	}
});

describe('the docs links n8n opens from the panel', () => {
	const manifest = JSON.parse(read('package.json')) as { repository?: unknown };
	const nodes = [
		{ codex: 'nodes/BookingService/BookingService.node.json', description: new BookingService().description },
		{ codex: 'nodes/BookingServiceTrigger/BookingServiceTrigger.node.json', description: new BookingServiceTrigger().description },
		{
			codex: 'nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.json',
			description: new BookingServicePollingTrigger().description,
		},
	];
	const credential = new BookingServiceApi();
	const page = /^https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/blob\/main\/(docs\/[\w-]+\.md)$/;

	/** The page a link opens, after checking it is a whole docs page in the repository: no fragment, no query. */
	function pageOf(url: string): string {
		expect(url, 'n8n appends ?utm_… to a node link: a #fragment would swallow it').not.toMatch(/[#?]/);
		expect(url).toMatch(page);
		const path = page.exec(url)![1]!;
		expect(existsSync(join(root, path)), `${path} exists`).toBe(true);
		return path;
	}

	it.each(nodes)('$codex: the node opens its own page, the credential link opens the credential page', ({ codex, description }) => {
		const { resources } = JSON.parse(read(codex)) as {
			resources: { primaryDocumentation: Array<{ url: string }>; credentialDocumentation: Array<{ url: string }> };
		};
		const nodePage = pageOf(resources.primaryDocumentation[0]!.url);
		expect(read(nodePage).split('\n')[0], `${nodePage} is the page of ${description.displayName}`).toMatch(
			new RegExp(`^# (The )?${description.displayName}( node| \\(|$)`),
		);
		expect(pageOf(resources.credentialDocumentation[0]!.url)).toBe('docs/credential.md');
		expect(description.documentationUrl, 'the codex link is the one n8n shows').toBeUndefined();
	});

	it('the credential opens docs/credential.md', () => {
		expect(pageOf(credential.documentationUrl)).toBe('docs/credential.md');
		expect(read('docs/credential.md').split('\n')[0]).toContain(credential.displayName);
	});

	it('all on one repository: the one package.json names once a maintainer sets it', () => {
		const links = [
			credential.documentationUrl,
			...nodes.flatMap(({ codex }) => JSON.stringify(JSON.parse(read(codex))).match(/https:[^"]+/g) ?? []),
		];
		const repositories = new Set(links.map((url) => url.slice(0, url.indexOf('/blob/'))));
		expect(repositories.size).toBe(1);
		const declared = gitHubRepository(manifest.repository);
		if (declared !== undefined) expect([...repositories][0]!.toLowerCase()).toBe(declared.toLowerCase());
	});
});
