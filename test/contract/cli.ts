/**
 * `npm run contract -- --base-url <url> [--json] [--timeout <seconds>]` (no API key: the document is public)
 *
 * Fetches `<url>/openapi.json`, compares it with what the nodes assume (assumptions.ts) and prints each difference
 * that matters, classified breaking / new / info. Exit 0: nothing breaking; 1: something breaking; 2: the document
 * could not be fetched or read, so nothing was compared. `--json` prints the same report as JSON.
 * `--assumptions` prints the assumptions themselves as JSON. Imports nothing outside test/contract, so it runs on bare
 * Node 24 with no install.
 */
import { parseArgs } from 'node:util';

import { ERRORS, OPERATIONS, WEBHOOKS } from './assumptions.ts';
import { compareWithAssumptions } from './compare.ts';
import { DocumentError, readDocument } from './openapi-reader.ts';
import { exitCodeFor, renderText, summarise } from './report.ts';
import type { DriftReport } from './report.ts';

const USAGE = 'Usage: npm run contract -- --base-url <url> [--json] [--timeout <seconds>]';
/** A description of a dozen operations is tens of kilobytes; this is far above any real one. */
const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

class Failure extends Error {
	readonly stage: NonNullable<DriftReport['failure']>['stage'];

	constructor(stage: Failure['stage'], message: string) {
		super(message);
		this.stage = stage;
	}
}

function causeOf(error: unknown): string {
	const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
	if (typeof cause?.code === 'string') return cause.code;
	return String(cause?.message ?? (error as Error).message);
}

async function fetchDocument(documentUrl: string, timeoutSeconds: number): Promise<unknown> {
	let response: Response;
	try {
		response = await fetch(documentUrl, {
			headers: { Accept: 'application/json' },
			signal: AbortSignal.timeout(timeoutSeconds * 1000),
		});
	} catch (error) {
		const timedOut = (error as Error).name === 'TimeoutError';
		throw new Failure('fetch', timedOut ? `no answer within ${timeoutSeconds} s` : `could not connect (${causeOf(error)})`);
	}
	if (!response.ok) throw new Failure('fetch', `the service answered HTTP ${response.status} ${response.statusText}`.trim());
	let text: string;
	try {
		text = await response.text();
	} catch (error) {
		const timedOut = (error as Error).name === 'TimeoutError';
		throw new Failure('fetch', timedOut ? `the answer did not complete within ${timeoutSeconds} s` : `the answer broke off (${causeOf(error)})`);
	}
	if (text.length > MAX_DOCUMENT_BYTES) throw new Failure('parse', `the answer is larger than ${MAX_DOCUMENT_BYTES} bytes`);
	try {
		return JSON.parse(text) as unknown;
	} catch {
		const type = response.headers.get('content-type') ?? 'no content type';
		const start = JSON.stringify(text.trim().slice(0, 40));
		throw new Failure('parse', `the answer is not JSON (${type}; it begins ${start})`);
	}
}

async function check(baseUrl: string | undefined, timeoutSeconds: number): Promise<DriftReport> {
	const checkedAt = new Date().toISOString();
	let documentUrl = '(none)';
	try {
		if (baseUrl === undefined) throw new Failure('arguments', `--base-url is required. ${USAGE}`);
		let parsed: URL;
		try {
			parsed = new URL(baseUrl);
		} catch {
			throw new Failure('arguments', `--base-url is not a URL: ${JSON.stringify(baseUrl)}`);
		}
		if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
			throw new Failure('arguments', `--base-url must start with https:// or http://, not ${parsed.protocol}`);
		documentUrl = `${baseUrl.replace(/\/+$/, '')}/openapi.json`;
		const document = await fetchDocument(documentUrl, timeoutSeconds);
		let read;
		try {
			read = readDocument(document);
		} catch (error) {
			if (error instanceof DocumentError) throw new Failure('read', error.message);
			throw error;
		}
		const findings = compareWithAssumptions(read);
		return {
			documentUrl,
			checkedAt,
			openapi: read.openapi,
			version: read.version,
			summary: summarise(findings),
			findings,
			exitCode: exitCodeFor(findings),
		};
	} catch (error) {
		// Exit 1 must only ever mean "breaking", so a fault of the check itself is reported as not checked too.
		const failure =
			error instanceof Failure
				? { stage: error.stage, message: error.message }
				: { stage: 'check' as const, message: (error as Error).stack ?? String(error) };
		return { documentUrl, checkedAt, failure, exitCode: 2 };
	}
}

let options;
try {
	options = parseArgs({
		options: {
			'base-url': { type: 'string' },
			json: { type: 'boolean', default: false },
			timeout: { type: 'string', default: '30' },
			assumptions: { type: 'boolean', default: false },
		},
		strict: true,
	}).values;
} catch (error) {
	console.error(`${(error as Error).message}\n${USAGE}`);
	process.exit(2);
}

if (options.assumptions) {
	process.stdout.write(`${JSON.stringify({ operations: OPERATIONS, webhooks: WEBHOOKS, errors: ERRORS }, null, 2)}\n`);
	process.exit(0);
}
const timeoutSeconds = Number(options.timeout);
if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
	console.error(`--timeout must be a number of seconds above 0\n${USAGE}`);
	process.exit(2);
}
const report = await check(options['base-url'], timeoutSeconds);
process.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : renderText(report));
process.exitCode = report.exitCode;
