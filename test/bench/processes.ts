/**
 * Child processes of the benchmark: measuring workers (each a fresh V8 heap, so one section's garbage or JIT state
 * never colours another's figures) and the Booking Service simulator (its own process, so its CPU and memory are
 * not counted as the client's).
 *
 * Every child is bounded in time and ended by its pid when the bench is done with it or gives up on it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(BENCH_DIR, '../..');
/** Git-ignored; reports and profiles go here. */
export const REPORT_DIR = join(REPO_ROOT, '.bench');

/**
 * The built package the in-process sections load: dist/ unless BENCH_DIST_DIR names another build (run.ts --dist),
 * e.g. a candidate fix compiled elsewhere, to compare against without touching the repository's build.
 */
export function distDir(): string {
	return process.env.BENCH_DIST_DIR ?? join(REPO_ROOT, 'dist');
}

/**
 * The package real n8n installs (npm pack of this folder): the repository, or with BENCH_DIST_DIR the folder that
 * holds that build, when it has a package.json of its own (copy the repository's package.json, README.md and
 * LICENSE.md beside the candidate dist/).
 */
export function packageDir(): string {
	const dist = process.env.BENCH_DIST_DIR;
	if (dist !== undefined && existsSync(join(dirname(dist), 'package.json'))) return dirname(dist);
	return REPO_ROOT;
}

const children = new Set<ChildProcess>();

/** Ends every child still running (used on Ctrl-C and at exit); each by its own pid. */
export function killChildren(): void {
	for (const child of children) {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
	}
	children.clear();
}
process.once('exit', killChildren);

export interface WorkerOptions {
	/** Killed after this long; the section then reports the timeout. */
	timeoutMs: number;
	/** Write a V8 CPU profile of the worker into this folder. */
	cpuProfileDir?: string;
}

/**
 * Runs `test/bench/<file>` in a fresh Node (this same Node 24 binary) with `--expose-gc`, hands it `input` as JSON
 * and resolves with the JSON it writes through `writeWorkerResult`. Its stderr (progress lines) passes through.
 */
export async function runWorker<T>(file: string, input: unknown, options: WorkerOptions): Promise<T> {
	const scratch = mkdtempSync(join(tmpdir(), 'booking-bench-'));
	const resultFile = join(scratch, 'result.json');
	const flags = ['--expose-gc'];
	if (options.cpuProfileDir !== undefined) {
		mkdirSync(options.cpuProfileDir, { recursive: true });
		flags.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`);
	}
	const child = spawn(process.execPath, [...flags, join(BENCH_DIR, file)], {
		cwd: REPO_ROOT,
		env: { ...process.env, BENCH_INPUT: JSON.stringify(input), BENCH_RESULT_FILE: resultFile },
		stdio: ['ignore', 'inherit', 'inherit'],
	});
	children.add(child);
	const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
	try {
		const how = await new Promise<string>((settle) => {
			child.once('exit', (code, signal) => settle(signal ? `killed by ${signal}` : `exited with ${code}`));
			child.once('error', (error) => settle(`could not start: ${error.message}`));
		});
		let text: string | undefined;
		try {
			text = readFileSync(resultFile, 'utf8');
		} catch {
			// no result written
		}
		if (text === undefined || how !== 'exited with 0') {
			const timedOut = how === 'killed by SIGKILL' ? ` (time limit ${options.timeoutMs} ms)` : '';
			throw new Error(`worker ${file} ${how}${timedOut} without a result`);
		}
		return JSON.parse(text) as T;
	} finally {
		clearTimeout(timer);
		children.delete(child);
		rmSync(scratch, { recursive: true, force: true });
	}
}

/** In a worker: the input the bench handed over. */
export function readWorkerInput<T>(): T {
	const text = process.env.BENCH_INPUT;
	if (text === undefined) throw new Error('BENCH_INPUT is not set: run this file through test/bench/run.ts');
	return JSON.parse(text) as T;
}

/** What every measuring worker is handed: the simulator to use, and how many measured rounds in how long. */
export interface WorkerInput {
	baseUrl: string;
	apiKey: string;
	/** Measured rounds of every variant. */
	runs: number;
	/** Start no new round after this many milliseconds (the first always runs). */
	timeLimitMs: number;
}

/** In a worker: hand the result back. */
export async function writeWorkerResult(result: unknown): Promise<void> {
	const file = process.env.BENCH_RESULT_FILE;
	if (file === undefined) throw new Error('BENCH_RESULT_FILE is not set');
	const { writeFileSync } = await import('node:fs');
	writeFileSync(file, JSON.stringify(result));
}

export function progress(message: string): void {
	process.stderr.write(`[bench] ${message}\n`);
}

export interface SimulatorProcess {
	baseUrl: string;
	controlUrl: string;
	apiKeys: { readWrite: string; readOnly: string };
	/** POST/GET/DELETE on the control interface; resolves with the parsed answer (undefined for 204). */
	control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
	stop(): Promise<void>;
}

/**
 * The simulator's CLI in its own process on 127.0.0.1, rate limit off, loopback webhook targets allowed (real n8n
 * and the trigger run on loopback here).
 */
export async function startSimulatorProcess(): Promise<SimulatorProcess> {
	const child = spawn(
		process.execPath,
		[join(REPO_ROOT, 'test/simulator/cli.ts'), '--port', '0', '--no-rate-limit', '--allow-insecure-webhooks'],
		{ cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	children.add(child);
	let stderr = '';
	child.stderr!.on('data', (chunk: Buffer) => {
		stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
	});
	const exited = new Promise<void>((settle) => child.once('exit', () => settle()));
	const line = await new Promise<string>((resolveLine, reject) => {
		let buffered = '';
		const timer = setTimeout(() => reject(new Error(`the simulator did not start in 30 s: ${stderr}`)), 30_000);
		child.stdout!.on('data', (chunk: Buffer) => {
			buffered += chunk.toString('utf8');
			const first = buffered.split('\n').find((text) => text.startsWith('{') && text.endsWith('}'));
			if (first !== undefined) {
				clearTimeout(timer);
				resolveLine(first);
			}
		});
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`the simulator exited with ${code} before it was ready: ${stderr}`));
		});
	});
	const { baseUrl, apiKeys } = JSON.parse(line) as { baseUrl: string; apiKeys: SimulatorProcess['apiKeys'] };
	const controlUrl = baseUrl.replace(/\/v1$/, '/_control');
	return {
		baseUrl,
		controlUrl,
		apiKeys,
		async control<T>(method: string, path: string, body?: unknown): Promise<T> {
			const response = await fetch(`${controlUrl}${path}`, {
				method,
				headers: body === undefined ? {} : { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
				signal: AbortSignal.timeout(60_000),
			});
			const text = await response.text();
			if (!response.ok) throw new Error(`simulator control ${method} ${path} answered ${response.status}: ${text}`);
			return (text === '' ? undefined : JSON.parse(text)) as T;
		},
		async stop() {
			if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
			await exited;
			clearTimeout(timer);
			children.delete(child);
		},
	};
}
