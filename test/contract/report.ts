// The drift report as the command prints it (plain text or --json) and as the scheduled workflow files it (Markdown).
import type { Finding, FindingClass } from './compare.ts';

export interface DriftReport {
	documentUrl: string;
	checkedAt: string;
	/** Set when the document was read and compared. */
	openapi?: string;
	version?: string;
	summary?: Record<FindingClass, number>;
	findings?: Finding[];
	/** Set when it could not be: what failed. Nothing was compared. */
	failure?: { stage: 'arguments' | 'fetch' | 'parse' | 'read' | 'check'; message: string };
	exitCode: 0 | 1 | 2;
}

const HEADINGS: Record<FindingClass, string> = {
	breaking: 'Breaking: the nodes would fail against this service',
	new: 'New: the service offers something the nodes do not use yet',
	info: 'Info',
};
const CLASSES: FindingClass[] = ['breaking', 'new', 'info'];
const FAILURES: Record<NonNullable<DriftReport['failure']>['stage'], string> = {
	arguments: 'Not run',
	fetch: 'Could not fetch the document',
	parse: 'Could not read the document',
	read: 'Could not read the document',
	check: 'The check failed',
};

export function exitCodeFor(findings: Finding[]): 0 | 1 {
	return findings.some((finding) => finding.class === 'breaking') ? 1 : 0;
}

export function summarise(findings: Finding[]): Record<FindingClass, number> {
	const summary = { breaking: 0, new: 0, info: 0 };
	for (const finding of findings) summary[finding.class] += 1;
	return summary;
}

const line = (finding: Finding) =>
	`${finding.item}: ${finding.message}${finding.where.length > 0 ? ` (in ${finding.where.join('; ')})` : ''}`;

function verdict(report: DriftReport): string {
	if (report.failure !== undefined) return 'Not checked: nothing was compared (exit 2).';
	const { breaking = 0, new: added = 0, info = 0 } = report.summary ?? {};
	const counts = `${breaking} breaking, ${added} new, ${info} info`;
	return breaking > 0 ? `${counts}: the nodes would fail (exit 1).` : `${counts}: nothing breaking (exit 0).`;
}

export function renderText(report: DriftReport): string {
	const lines = ['Booking Service API drift check', `Document: ${report.documentUrl}`];
	if (report.failure !== undefined) {
		lines.push(`${FAILURES[report.failure.stage]}: ${report.failure.message}`);
	} else {
		lines.push(`OpenAPI ${report.openapi}, document version ${report.version}; compared with test/contract/assumptions.ts`);
		for (const found of CLASSES) {
			const group = (report.findings ?? []).filter((finding) => finding.class === found);
			if (group.length === 0) continue;
			lines.push('', `${HEADINGS[found]} (${group.length})`, ...group.map((finding) => `  - ${line(finding)}`));
		}
	}
	lines.push('', verdict(report));
	return `${lines.join('\n')}\n`;
}

/** Marks the one issue the workflow keeps up to date. */
export const ISSUE_MARKER = '<!-- booking-service-api-drift -->';
export const ISSUE_TITLE = "API drift: the Booking Service's OpenAPI document changed in a way that breaks the nodes";

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderIssue(report: DriftReport): string {
	const compared = report.failure === undefined;
	const lines = [
		ISSUE_MARKER,
		compared
			? `The scheduled drift check compared \`${report.documentUrl}\` (OpenAPI ${report.openapi}, version ${report.version}) with what the nodes assume (\`test/contract/assumptions.ts\`) on ${report.checkedAt}.`
			: `The scheduled drift check of \`${report.documentUrl}\` on ${report.checkedAt} did not compare anything. ${FAILURES[report.failure!.stage]}: ${report.failure!.message}.`,
		'',
		verdict(report),
	];
	for (const found of CLASSES) {
		const group = (report.findings ?? []).filter((finding) => finding.class === found);
		if (group.length === 0) continue;
		lines.push('', `### ${HEADINGS[found]} (${group.length})`, '', '| Item | What changed | Where |', '|---|---|---|');
		for (const finding of group)
			lines.push(`| \`${cell(finding.item)}\` | ${cell(finding.message)} | ${cell(finding.where.join(', '))} |`);
	}
	lines.push(
		'',
		compared
			? 'What to do: docs/maintainers/api-drift.md. Change the nodes and the assumptions together, or, if the service is wrong, tell its maintainers. Each run updates this issue while something is breaking; close it once fixed.'
			: "What to do: check the repository variable BOOKING_SERVICE_BASE_URL (the base URL including /v1) and that the service serves /openapi.json without a token.",
	);
	return `${lines.join('\n')}\n`;
}
