/**
 * `node test/contract/issue-body.ts <report.json>`: the Markdown the scheduled workflow (.github/workflows/contract.yml)
 * files as the drift issue and shows as the run's summary, from the report `npm run contract -- --json` wrote.
 * `node test/contract/issue-body.ts --title`: the issue's title.
 */
import { readFileSync } from 'node:fs';

import { ISSUE_TITLE, renderIssue } from './report.ts';
import type { DriftReport } from './report.ts';

const [argument] = process.argv.slice(2);
if (argument === '--title') {
	process.stdout.write(`${ISSUE_TITLE}\n`);
} else if (argument === undefined) {
	console.error('Usage: node test/contract/issue-body.ts <report.json> | --title');
	process.exitCode = 2;
} else {
	process.stdout.write(renderIssue(JSON.parse(readFileSync(argument, 'utf8')) as DriftReport));
}
