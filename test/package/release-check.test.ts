/**
 * The release check `prepublishOnly` runs: it refuses today's manifest (no repository, an `.invalid` author email,
 * a homepage on npm) naming each field, and passes once a maintainer sets them. The script runs as npm runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentationLinks, gitHubRepository, releaseProblems } from './release-check.ts';

const root = join(import.meta.dirname, '..', '..');
const script = join(import.meta.dirname, 'release-check.ts');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'release-check-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What the manifest held when this check was added: the three fields a maintainer must still set. */
const placeholders = {
	repository: undefined,
	author: { name: 'Booking Service integration team', email: 'integrations@booking-service.invalid' },
	homepage: 'https://www.npmjs.com/package/n8n-nodes-booking-service',
};
/** The same fields as a maintainer would set them, on the repository the docs links name (CONTRIBUTING.md, "Releasing"). */
const ready = {
	repository: { type: 'git', url: 'git+https://github.com/booking-service/n8n-nodes-booking-service.git' },
	author: { name: 'Booking Service integration team', email: 'integrations@booking-service.com' },
	homepage: 'https://github.com/booking-service/n8n-nodes-booking-service#readme',
};

function runCheck(fields: Record<string, unknown>, env: Record<string, string> = {}) {
	const path = join(work, `package-${Math.random().toString(36).slice(2)}.json`);
	writeFileSync(path, JSON.stringify({ ...manifest, ...fields }));
	const { GITHUB_REPOSITORY: _ignored, ...inherited } = process.env;
	const result = spawnSync(process.execPath, [script, path], { encoding: 'utf8', env: { ...inherited, ...env } });
	return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

describe('release check (prepublishOnly)', () => {
	it('runs first in prepublishOnly, before the build and before npm packs anything', () => {
		expect(manifest.scripts.prepublishOnly).toMatch(/^node test\/package\/release-check\.ts && npm run build\b/);
	});

	it('refuses the placeholder manifest, naming repository, author, homepage and the docs links', () => {
		const { status, stderr } = runCheck(placeholders);
		expect(status).toBe(1);
		expect(stderr).toContain('repository: missing');
		expect(stderr).toContain('author: email integrations@booking-service.invalid is a placeholder');
		expect(stderr).toContain('homepage: https://www.npmjs.com/package/n8n-nodes-booking-service points at npm');
		expect(stderr).toContain('docs links: https://github.com/booking-service/n8n-nodes-booking-service/blob/main/docs/');
		expect(stderr.match(/^ {2}- /gm)).toHaveLength(4);
	});

	it('refuses a repository other than the one the nodes\' and credential\'s docs links open', () => {
		const links = documentationLinks();
		expect(links).toHaveLength(7); // three nodes' page and credential page, the credential's own link
		const fork = 'git+https://github.com/someone-else/n8n-nodes-booking-service.git';
		expect(releaseProblems({ ...ready, repository: fork, homepage: 'https://github.com/someone-else/n8n-nodes-booking-service' }, undefined, links)).toEqual([
			expect.stringMatching(/^docs links: .* point them at https:\/\/github\.com\/someone-else\/n8n-nodes-booking-service\/blob\/main\/docs\/<page>\.md/),
		]);
		expect(releaseProblems(ready, undefined, links)).toEqual([]);
	});

	it('passes once the three fields are set', () => {
		const { status, stdout, stderr } = runCheck(ready);
		expect(stderr).toBe('');
		expect(status).toBe(0);
		expect(stdout).toContain('release check passed');
	});

	it('in GitHub Actions, refuses a repository other than the one publishing (provenance would fail)', () => {
		expect(runCheck(ready, { GITHUB_REPOSITORY: 'booking-service/n8n-nodes-booking-service' }).status).toBe(0);
		const other = runCheck(ready, { GITHUB_REPOSITORY: 'someone-else/fork' });
		expect(other.status).toBe(1);
		expect(other.stderr).toContain('is not the repository publishing it (someone-else/fork)');
	});

	it('names each field on its own', () => {
		expect(releaseProblems({ ...ready, repository: undefined })).toEqual([
			expect.stringMatching(/^repository: missing/),
			expect.stringMatching(/^homepage: .* is not on the repository/),
		]);
		expect(releaseProblems({ ...ready, repository: 'https://gitlab.com/a/b' })[0]).toMatch(/not a GitHub repository/);
		expect(releaseProblems({ ...ready, author: 'Team <team@example.com>' })).toEqual([
			expect.stringMatching(/^author: email team@example\.com is a placeholder/),
		]);
		expect(releaseProblems({ ...ready, author: { name: 'Team' } })).toEqual([expect.stringMatching(/^author: no email/)]);
		expect(releaseProblems({ ...ready, homepage: undefined })).toEqual([expect.stringMatching(/^homepage: missing/)]);
	});

	it('reads the repository forms npm accepts', () => {
		const expected = 'https://github.com/o/r';
		for (const form of ['github:o/r', 'o/r', 'https://github.com/o/r', 'git+ssh://git@github.com/o/r.git', { url: 'git://github.com/o/r.git' }]) {
			expect(gitHubRepository(form), JSON.stringify(form)).toBe(expected);
		}
		expect(gitHubRepository('https://example.org/o/r')).toBeUndefined();
	});
});
