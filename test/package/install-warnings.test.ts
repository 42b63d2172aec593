/**
 * `npm ci` on a fresh clone with Node 20 (CI's Node) prints only the warnings the README names at the command: no
 * peer dependency npm has to override (ERESOLVE, 19 warnings of about 18 lines each while TypeScript was newer than
 * the lint's typescript-eslint accepts), and no engine warning (EBADENGINE) beyond the two
 * isolated-vm copies n8n pins. Read from the lockfile with npm's own version rules (semver).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
// npm's own range rules, from the copy npm's tool chain installs; untyped here on purpose (no @types package for it).
const semver = require('semver') as {
	satisfies: (version: string, range: string, options?: { includePrerelease?: boolean }) => boolean;
};

interface LockedPackage {
	version?: string;
	engines?: { node?: string } | string[];
	peerDependencies?: Record<string, string>;
	peerDependenciesMeta?: Record<string, { optional?: boolean }>;
	optional?: boolean;
}

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
	packages: Record<string, LockedPackage>;
};

/** The oldest Node the README's commands support on PATH. */
const NODE_ON_PATH = '20.19.0';

/** Where Node's resolution finds `name` from the package at `location` (its own node_modules, then its parents'). */
function resolveFrom(location: string, name: string): LockedPackage | undefined {
	for (let base = location; ; ) {
		const found = lock.packages[`${base === '' ? '' : `${base}/`}node_modules/${name}`];
		if (found !== undefined) return found;
		if (base === '') return undefined;
		const cut = base.lastIndexOf('/node_modules/');
		base = cut === -1 ? '' : base.slice(0, cut);
	}
}

describe('what npm ci warns about', () => {
	it('every installed peer dependency is in the range its dependant declares (no ERESOLVE overrides)', () => {
		const overridden: string[] = [];
		for (const [location, entry] of Object.entries(lock.packages)) {
			for (const [peer, range] of Object.entries(entry.peerDependencies ?? {})) {
				const installed = resolveFrom(location, peer);
				if (installed?.version === undefined) continue; // a missing optional peer is not an override
				if (!semver.satisfies(installed.version, range, { includePrerelease: true })) {
					overridden.push(`${location} wants ${peer}@"${range}", gets ${installed.version}`);
				}
			}
		}
		expect(overridden).toEqual([]);
	});

	it(`no package asks for a newer Node than ${NODE_ON_PATH} except the isolated-vm copies n8n pins`, () => {
		const refusing: string[] = [];
		for (const [location, entry] of Object.entries(lock.packages)) {
			const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
			if (range === undefined || semver.satisfies(NODE_ON_PATH, range)) continue;
			refusing.push(location || '(this package)');
		}
		expect(refusing).toEqual([
			'node_modules/isolated-vm',
			'node_modules/n8n-workflow-1/node_modules/isolated-vm',
		]);
	});
});
