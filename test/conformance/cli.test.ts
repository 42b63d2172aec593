// `npm run simulator -- --port <p>`: one line of JSON on stdout once ready, nothing else there, a
// clean exit on SIGTERM and SIGINT.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_WAIT_MS = 10_000;

interface Started {
	child: ChildProcess;
	line: string;
	stdout: () => string;
	exited: Promise<number | null>;
}

/**
 * Spawns a command in its own process group and resolves with the first stdout line (bounded wait). Its own group,
 * so `stopGroup` reaches the simulator even behind `npm run`, which does not pass SIGTERM on to its script.
 */
async function start(command: string, args: string[]): Promise<Started> {
	const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	let stdout = '';
	const exited = new Promise<number | null>((resolve) =>
		child.once('exit', (code) => resolve(code)),
	);
	const line = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(
			() => reject(new Error(`no line within ${READY_WAIT_MS} ms`)),
			READY_WAIT_MS,
		);
		child.stdout!.on('data', (chunk: Buffer) => {
			stdout += chunk.toString('utf8');
			const jsonLine = stdout.split('\n').find((candidate) => candidate.startsWith('{'));
			if (jsonLine !== undefined && stdout.includes(`${jsonLine}\n`)) {
				clearTimeout(timer);
				resolve(jsonLine);
			}
		});
		child.once('exit', () => reject(new Error(`exited before the line; stdout: ${stdout}`)));
	});
	return { child, line, stdout: () => stdout, exited };
}

async function expectWorkingKeys(line: string) {
	const ready = JSON.parse(line) as {
		baseUrl: string;
		apiKeys: { readWrite: string; readOnly: string };
	};
	expect(Object.keys(ready)).toEqual(['baseUrl', 'apiKeys']);
	expect(Object.keys(ready.apiKeys)).toEqual(['readWrite', 'readOnly']);
	expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
	for (const [choice, key] of Object.entries(ready.apiKeys)) {
		const response = await fetch(`${ready.baseUrl}/me`, {
			headers: { authorization: `Bearer ${key}` },
		});
		expect(response.status, choice).toBe(200);
	}
	return ready;
}

describe('the simulator command', () => {
	it('prints exactly one JSON line, serves on the announced port and exits cleanly on SIGTERM', async () => {
		const started = await start(process.execPath, [
			'--experimental-strip-types',
			'test/simulator/cli.ts',
			'--port',
			'0',
		]);
		await expectWorkingKeys(started.line);
		started.child.kill('SIGTERM');
		expect(await started.exited).toBe(0);
		expect(started.stdout()).toBe(`${started.line}\n`);
	});

	it('takes --seed, --bookings and --allow-insecure-webhooks, and exits cleanly on SIGINT', async () => {
		const started = await start(process.execPath, [
			'--experimental-strip-types',
			'test/simulator/cli.ts',
			'--port',
			'0',
			'--seed',
			'7',
			'--bookings',
			'120',
			'--allow-insecure-webhooks',
		]);
		const ready = await expectWorkingKeys(started.line);
		const control = ready.baseUrl.replace('/v1', '/_control');
		const bookings = (await (await fetch(`${control}/bookings`)).json()) as { items: unknown[] };
		expect(bookings.items.length).toBeGreaterThanOrEqual(120);
		const subscribed = await fetch(`${ready.baseUrl}/webhooks`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${ready.apiKeys.readWrite}`,
				'content-type': 'application/json',
			},
			body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['*'] }),
		});
		expect(subscribed.status).toBe(201);
		started.child.kill('SIGINT');
		expect(await started.exited).toBe(0);
	});

	it('gives the same keys for the same seed and other keys for another seed', async () => {
		const keysOf = async (seed: string) => {
			const started = await start(process.execPath, [
				'--experimental-strip-types',
				'test/simulator/cli.ts',
				'--port',
				'0',
				'--seed',
				seed,
			]);
			started.child.kill('SIGTERM');
			await started.exited;
			return (JSON.parse(started.line) as { apiKeys: object }).apiKeys;
		};
		const first = await keysOf('3');
		expect(await keysOf('3')).toEqual(first);
		expect(await keysOf('4')).not.toEqual(first);
	});

	it('runs through npm run (silent mode keeps npm’s own banner off stdout)', async () => {
		const started = await start('npm', ['run', '--silent', 'simulator', '--', '--port', '0']);
		const ready = await expectWorkingKeys(started.line);
		process.kill(-started.child.pid!, 'SIGTERM');
		await started.exited;
		expect(started.stdout()).toBe(`${started.line}\n`);
		expect(await stoppedListening(ready.baseUrl)).toBe(true);
	});
});

/** Whether the server at `baseUrl` stops accepting connections within a bounded wait. */
async function stoppedListening(baseUrl: string): Promise<boolean> {
	for (let attempt = 0; attempt < 50; attempt++) {
		try {
			await fetch(`${baseUrl}/openapi.json`);
		} catch {
			return true;
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return false;
}
