/**
 * The published package's shape: what n8n's community-node loader and the npm registry see.
 * Runs against the built dist/ (the test script builds first in CI), so a missing icon or a
 * path in the `n8n` section that tsc never emits fails here rather than in a user's n8n.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

interface PackedFile {
	path: string;
}

function packedFiles(): string[] {
	const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'ignore'],
	});
	const [pack] = JSON.parse(output) as Array<{ files: PackedFile[] }>;
	return pack.files.map((file) => file.path);
}

describe('package.json', () => {
	it('is a community node package with no runtime dependencies', () => {
		expect(manifest.name).toBe('n8n-nodes-booking-service');
		expect(manifest.keywords).toContain('n8n-community-node-package');
		expect(manifest.license).toBe('MIT');
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(manifest.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(manifest.files).toEqual(['dist']);
		expect(manifest.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
	});
});

describe('packed tarball', () => {
	const files = packedFiles();

	it('holds only dist/, the README, the licence and package.json', () => {
		const unexpected = files.filter(
			(path) => !/^dist\//.test(path) && !['README.md', 'LICENSE.md', 'package.json'].includes(path),
		);
		expect(unexpected).toEqual([]);
	});

	it('ships no test code', () => {
		expect(files.filter((path) => /(^|\/)test(s)?\/|\.test\.|\.spec\./.test(path))).toEqual([]);
	});

	it('contains every credential and node the n8n section names, with their icons and codex files', () => {
		const declared: string[] = [...manifest.n8n.credentials, ...manifest.n8n.nodes];
		for (const path of declared) {
			expect(files, path).toContain(path);
			expect(existsSync(join(root, path)), path).toBe(true);
		}
		for (const node of manifest.n8n.nodes as string[]) {
			const folder = node.slice(0, node.lastIndexOf('/'));
			const codex = node.replace(/\.js$/, '.json');
			expect(files, codex).toContain(codex);
			const icons = files.filter((path) => path.startsWith(folder + '/') && path.endsWith('.svg'));
			expect(icons.length, `${folder} light and dark icons`).toBeGreaterThanOrEqual(2);
		}
	});
});
