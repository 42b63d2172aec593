// The release check `prepublishOnly` runs before anything is built or packed: it refuses to publish while
// package.json lacks what npm provenance and n8n's verification need (a public GitHub repository, a real author
// email, a homepage on that repository, the nodes' and credential's docs links on that repository), naming each
// field, so a first `npm publish` fails in a second, not after CI.
// `node test/package/release-check.ts [manifest]` checks package.json (or the given file); exit 1 lists the problems.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
	repository?: unknown;
	author?: unknown;
	homepage?: unknown;
}

const FIX = 'see CONTRIBUTING.md, "Releasing"';
/** Domains RFC 2606 and RFC 6761 reserve, so no mailbox or site can ever live there. */
const RESERVED = /(^|\.)(invalid|test|example|localhost)$|(^|\.)example\.(com|net|org)$/i;

/** `https://github.com/<owner>/<name>` for the forms npm accepts for a GitHub repository, else undefined. */
export function gitHubRepository(repository: unknown): string | undefined {
	const raw = typeof repository === 'string' ? repository : (repository as { url?: unknown } | undefined)?.url;
	if (typeof raw !== 'string') return undefined;
	const match =
		/^(?:git\+)?(?:https?|ssh|git):\/\/(?:git@)?github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/.exec(raw) ??
		/^(?:github:)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(raw);
	return match ? `https://github.com/${match[1]}/${match[2]}` : undefined;
}

function authorEmail(author: unknown): string | undefined {
	if (typeof author === 'string') return /<([^>]+)>/.exec(author)?.[1];
	const email = (author as { email?: unknown } | undefined)?.email;
	return typeof email === 'string' ? email : undefined;
}

const root = join(import.meta.dirname, '..', '..');

/** The docs links n8n opens from the panel: each node's codex file and the credential's `documentationUrl`. */
export function documentationLinks(): string[] {
	const links: string[] = [];
	for (const folder of readdirSync(join(root, 'nodes'), { withFileTypes: true })) {
		if (!folder.isDirectory()) continue;
		for (const file of readdirSync(join(root, 'nodes', folder.name)).filter((name) => name.endsWith('.node.json'))) {
			links.push(...JSON.stringify(JSON.parse(readFileSync(join(root, 'nodes', folder.name, file), 'utf8'))).match(/https?:\/\/[^"]+/g) ?? []);
		}
	}
	for (const file of readdirSync(join(root, 'credentials')).filter((name) => name.endsWith('.credentials.ts'))) {
		links.push(...[...readFileSync(join(root, 'credentials', file), 'utf8').matchAll(/documentationUrl = '([^']+)'/g)].map((m) => m[1]!));
	}
	return links;
}

/**
 * What stops `npm publish --provenance` or n8n's verification, one line per field. `githubRepository` is the
 * `owner/name` a GitHub Actions run publishes from (GITHUB_REPOSITORY): provenance needs the manifest to name it.
 */
export function releaseProblems(manifest: Manifest, githubRepository?: string, docsLinks: string[] = []): string[] {
	const problems: string[] = [];
	const repository = gitHubRepository(manifest.repository);
	if (manifest.repository === undefined) {
		problems.push('repository: missing — set it to the public GitHub repository (npm refuses --provenance without it)');
	} else if (repository === undefined) {
		problems.push(`repository: ${JSON.stringify(manifest.repository)} is not a GitHub repository URL`);
	} else if (githubRepository && repository.toLowerCase() !== `https://github.com/${githubRepository}`.toLowerCase()) {
		problems.push(`repository: ${repository} is not the repository publishing it (${githubRepository})`);
	}

	const email = authorEmail(manifest.author);
	const domain = email?.split('@')[1];
	if (email === undefined || domain === undefined) {
		problems.push('author: no email — set author.email to a mailbox the maintainers read');
	} else if (RESERVED.test(domain)) {
		problems.push(`author: email ${email} is a placeholder (${domain} can never receive mail)`);
	}

	const homepage = manifest.homepage;
	if (typeof homepage !== 'string') {
		problems.push('homepage: missing — set it to the GitHub repository (or a page in it)');
	} else if (repository === undefined || !homepage.toLowerCase().startsWith(repository.toLowerCase())) {
		const where = /npmjs\.(com|org)/i.test(homepage) ? 'points at npm' : 'is not on the repository';
		problems.push(`homepage: ${homepage} ${where} — set it to ${repository ?? 'the GitHub repository'}`);
	}

	const docsBase = `${repository ?? 'https://github.com/<owner>/<name>'}/blob/main/docs/`;
	const offRepository = docsLinks.filter((link) => !link.toLowerCase().startsWith(docsBase.toLowerCase()));
	if (offRepository.length > 0) {
		problems.push(`docs links: ${offRepository.join(', ')} — point them at ${docsBase}<page>.md (nodes/*/*.node.json, credentials/)`);
	}
	return problems;
}

function runsAsScript(): boolean {
	const entry = process.argv[1];
	return entry !== undefined && realpathSync(entry) === realpathSync(import.meta.filename);
}

if (runsAsScript()) {
	const path = process.argv[2] ?? join(root, 'package.json');
	const manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
	const problems = releaseProblems(manifest, process.env.GITHUB_REPOSITORY, documentationLinks());
	if (problems.length > 0) {
		process.stderr.write(`Not ready to publish (${path}):\n${problems.map((line) => `  - ${line}`).join('\n')}\n${FIX}\n`);
		process.exit(1);
	}
	process.stdout.write('release check passed: repository, author email, homepage and docs links are set\n');
}
