/**
 * Builder pages hold what a builder acts on, each readable in about five minutes; evidence, test lists and review
 * history live in CONTRIBUTING.md, test/README.md and docs/maintainers/. Every page directly under docs/ is a builder
 * page, so a new one is held to this too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { wordCount } from './markdown.ts';

const root = join(import.meta.dirname, '..', '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** About five minutes of reading; the README, the front door, a little more. */
const WORD_LIMIT = 1_500;
const README_WORD_LIMIT = 2_000;

function problems(page: string): string[] {
	const text = read(page);
	const found: string[] = [];
	const reviewIds = text.match(/\bR\d+-(\d+|n)\b|\bS-\d\b/g);
	if (reviewIds) found.push(`review ids ${[...new Set(reviewIds)].join(', ')}`);
	const testPaths = text.match(/(?<![\w/.-])test\/[\w./-]+/g);
	if (testPaths) found.push(`test paths ${[...new Set(testPaths)].join(', ')}`);
	const limit = page === 'README.md' ? README_WORD_LIMIT : WORD_LIMIT;
	const words = wordCount(text);
	if (words > limit) found.push(`${words} words (at most ${limit})`);
	// Not on npm yet: `npm install <name>` answers 404. Install from the packed tarball, as the README says.
	if (/npm (install|i) n8n-nodes-booking-service(?!-)/.test(text)) found.push('npm install by name');
	return found;
}

describe('builder pages', () => {
	it('are the README and every page directly under docs/ (maintainers\' pages live in docs/maintainers/)', () => {
		expect(pages).toEqual(
			expect.arrayContaining(['README.md', 'docs/booking-service-node.md', 'docs/credential.md', 'docs/queue-mode.md']),
		);
		expect(pages.filter((page) => /security|performance|drift/.test(page))).toEqual([]);
	});

	it.each(pages)('%s: no review ids, no test paths, no install by name, readable in about five minutes', (page) => {
		expect(problems(page)).toEqual([]);
	});
});

describe('links between pages', () => {
	const maintainers = readdirSync(join(root, 'docs', 'maintainers')).map((name) => `docs/maintainers/${name}`);
	it.each([...pages, ...maintainers, 'CONTRIBUTING.md', 'test/README.md'])('%s: every relative link opens a file', (page) => {
		const targets = [...read(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
			.map((match) => match[1]!)
			.filter((target) => !/^[a-z]+:/.test(target));
		expect(targets.filter((target) => !existsSync(join(root, dirname(page), target)))).toEqual([]);
	});
});
