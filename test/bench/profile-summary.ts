/**
 * Where the time goes in a V8 CPU profile (`node --cpu-prof`): self time by function and by origin (this package,
 * n8n-core, n8n-workflow, HTTP clients, Node internals, garbage collection).
 *
 *   node test/bench/profile-summary.ts <file.cpuprofile> [--top=25] [--only=<path part>] [--callers=<function>]
 *
 * `--only=dist/` also reports the time of samples whose stack passes through a frame from a URL containing that text:
 * what one piece of code costs including everything it calls (inclusive time).
 * `--callers=<function name>` lists the call paths (a few frames up) that lead to that function's self time.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

export interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
	endTime: number;
}

export interface ProfileLine {
	name: string;
	ms: number;
	share: number;
}

export interface ProfileSummary {
	totalMs: number;
	byOrigin: ProfileLine[];
	byFunction: ProfileLine[];
	/** With `only`: time of samples whose stack includes a matching frame, and those samples by function. */
	inclusiveMs?: number;
	inclusiveByFunction?: ProfileLine[];
	/** With `callers`: the call paths into that function, by its self time. */
	callers?: ProfileLine[];
}

const ORIGINS: Array<[RegExp, string]> = [
	[/\/dist\/(nodes|credentials)\//, 'this package (dist/)'],
	[/\/nodes\/|\/credentials\//, 'this package (sources)'],
	[/n8n-core\//, 'n8n-core'],
	[/n8n-workflow\//, 'n8n-workflow'],
	[/n8n-nodes-base\//, 'n8n-nodes-base'],
	[/\/undici\/|node:internal\/deps\/undici/, 'undici'],
	[/axios|follow-redirects|proxy-from-env|form-data/, 'axios & friends'],
	[/\/test\/simulator\//, 'simulator'],
	[/\/test\/bench\//, 'bench'],
	[/node_modules\//, 'other dependencies'],
	[/^node:|^internal\//, 'Node.js internals'],
];

function originOf(node: ProfileNode): string {
	const { url, functionName } = node.callFrame;
	if (url === '') {
		if (functionName === '(garbage collector)') return 'garbage collection';
		if (functionName === '(idle)' || functionName === '(program)') return functionName;
		return 'native / V8 builtins';
	}
	for (const [pattern, origin] of ORIGINS) if (pattern.test(url)) return origin;
	return 'other';
}

function shortUrl(url: string): string {
	const index = url.lastIndexOf('node_modules/');
	if (index >= 0) return url.slice(index + 'node_modules/'.length);
	return url.replace(/^file:\/\/.*?\/(dist|test|nodes|credentials)\//, '$1/');
}

const CALLER_DEPTH = 4;

export function summarizeProfile(
	file: string,
	options: { top?: number; only?: string; callers?: string } = {},
): ProfileSummary {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const parent = new Map<number, number>();
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const selfMs = new Map<number, number>();
	for (let index = 0; index < profile.samples.length; index++) {
		const id = profile.samples[index];
		selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
	}

	const frameName = (node: ProfileNode) => {
		const { functionName, url, lineNumber } = node.callFrame;
		return url === '' ? functionName : `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
	};
	const callerPaths = new Map<string, number>();
	const inclusiveFunctions = new Map<string, number>();
	const origins = new Map<string, number>();
	const functions = new Map<string, number>();
	let totalMs = 0;
	let inclusiveMs = 0;
	const matches = new Map<number, boolean>();
	const stackMatches = (id: number): boolean => {
		const known = matches.get(id);
		if (known !== undefined) return known;
		const node = byId.get(id)!;
		const up = parent.get(id);
		const result =
			(options.only !== undefined && node.callFrame.url.includes(options.only)) || (up !== undefined && stackMatches(up));
		matches.set(id, result);
		return result;
	};
	for (const [id, ms] of selfMs) {
		const node = byId.get(id)!;
		const origin = originOf(node);
		if (origin === '(idle)') continue;
		totalMs += ms;
		origins.set(origin, (origins.get(origin) ?? 0) + ms);
		const name = frameName(node);
		functions.set(name, (functions.get(name) ?? 0) + ms);
		if (options.callers !== undefined && node.callFrame.functionName === options.callers) {
			const path: string[] = [];
			for (let up = parent.get(id); up !== undefined && path.length < CALLER_DEPTH; up = parent.get(up)) {
				path.push(frameName(byId.get(up)!));
			}
			const key = path.join('  ←  ');
			callerPaths.set(key, (callerPaths.get(key) ?? 0) + ms);
		}
		if (options.only !== undefined && stackMatches(id)) {
			inclusiveMs += ms;
			inclusiveFunctions.set(name, (inclusiveFunctions.get(name) ?? 0) + ms);
		}
	}
	const lines = (map: Map<string, number>, top: number) =>
		[...map]
			.sort((a, b) => b[1] - a[1])
			.slice(0, top)
			.map(([name, ms]) => ({ name, ms, share: ms / totalMs }));
	return {
		totalMs,
		byOrigin: lines(origins, 20),
		byFunction: lines(functions, options.top ?? 25),
		...(options.only === undefined
			? {}
			: { inclusiveMs, inclusiveByFunction: lines(inclusiveFunctions, options.top ?? 25) }),
		...(options.callers === undefined ? {} : { callers: lines(callerPaths, options.top ?? 25) }),
	};
}

export function renderProfileSummary(summary: ProfileSummary): string {
	const line = (entry: ProfileLine) =>
		`${entry.ms.toFixed(0).padStart(7)} ms ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`;
	const parts = [
		`busy ${summary.totalMs.toFixed(0)} ms (idle excluded)`,
		...(summary.inclusiveMs === undefined ? [] : [`inclusive in --only frames: ${summary.inclusiveMs.toFixed(0)} ms`]),
		'by origin (self time):',
		...summary.byOrigin.map(line),
		'by function (self time):',
		...summary.byFunction.map(line),
		...(summary.inclusiveByFunction === undefined
			? []
			: ['under the --only frames, by function (self time):', ...summary.inclusiveByFunction.map(line)]),
		...(summary.callers === undefined ? [] : ['callers:', ...summary.callers.map(line)]),
	];
	return parts.join('\n');
}

if (import.meta.main) {
	const { values, positionals } = parseArgs({
		options: { top: { type: 'string' }, only: { type: 'string' }, callers: { type: 'string' } },
		allowPositionals: true,
	});
	if (positionals.length === 0) {
		console.error('usage: node test/bench/profile-summary.ts <file.cpuprofile> [--top=25] [--only=<path part>] [--callers=<function>]');
		process.exit(2);
	}
	for (const file of positionals) {
		console.log(`== ${file}`);
		const summary = summarizeProfile(file, { top: Number(values.top ?? 25), only: values.only, callers: values.callers });
		console.log(renderProfileSummary(summary));
	}
}
