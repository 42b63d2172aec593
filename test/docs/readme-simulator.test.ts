/**
 * The README's "The simulator on its own", run as a reader runs it: its start command (on a free port instead of
 * 4010, which may be taken here), the line it says appears, a credential's request with the key it names, and its two
 * commands for seeing what is booked, which must show a booking just made through the API — the way it says to make
 * a booking the triggers report: delivered at once to n8n's http://localhost webhook, listed as changed for a poll.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { markdownSections } from './markdown.ts';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = markdownSections(readme).find((candidate) => candidate.heading === 'The simulator on its own');
const blocks = [...(section?.text ?? '').matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!.trim());
const README_PORT = '4010';

async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

interface Ready {
	baseUrl: string;
	apiKeys: { readWrite: string; readOnly: string };
}

let stop: () => void = () => undefined;
afterAll(() => stop());

/** Runs the README's start command on `port` (its own process group: npm does not pass SIGTERM on) until its line. */
async function startAsReadmeSays(port: number): Promise<Ready> {
	const command = blocks[0]!.replace(`--port ${README_PORT}`, `--port ${port}`);
	const child = spawn('sh', ['-c', command], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
	stop = () => {
		if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
	};
	let stdout = '';
	const line = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`no line within 15 s; stdout: ${stdout}`)), 15_000);
		child.stdout!.on('data', (chunk: Buffer) => {
			stdout += chunk.toString('utf8');
			if (stdout.includes('\n')) {
				clearTimeout(timer);
				resolve(stdout.split('\n')[0]!);
			}
		});
		child.once('exit', (code) => reject(new Error(`exited (${code}) before its line; stdout: ${stdout}`)));
	});
	return JSON.parse(line) as Ready;
}

/** A README command with its address, port and key placeholder replaced as a reader would, run by a shell. */
function runAsReadmeSays(command: string, port: number, ready: Ready): string {
	const filled = command
		.replaceAll(`127.0.0.1:${README_PORT}`, `127.0.0.1:${port}`)
		.replaceAll('<readOnly key>', ready.apiKeys.readOnly);
	return execFileSync('sh', ['-c', filled], { cwd: root, encoding: 'utf8', timeout: 15_000 });
}

describe('README: the simulator on its own', () => {
	it('gives one command to start it and two to see what is booked', () => {
		expect(blocks).toHaveLength(2);
		expect(blocks[0]).toMatch(/^npm run -s simulator -- --port 4010 --allow-insecure-webhooks$/);
		expect(blocks[1]!.split('\n')).toHaveLength(2);
	});

	it('says how to make a booking the triggers report: with a Booking Service node, as the API is used below', () => {
		expect(section!.text.replace(/\s+/g, ' ')).toContain(
			'For a booking the triggers report, book a free time with a Booking Service node (*Get Available Slots*, then *Booking → Create*): the webhook trigger runs at once, the polling trigger at its next poll.',
		);
	});

	it('starts as written, prints the line shown, and both commands list a booking just made through the API', async () => {
		const port = await freePort();
		const ready = await startAsReadmeSays(port);
		expect(ready.baseUrl).toBe(`http://127.0.0.1:${port}/v1`);
		expect(section!.text).toContain(`{"baseUrl":"http://127.0.0.1:${README_PORT}/v1","apiKeys":{"readWrite":"bsk_…","readOnly":"bsk_…"}}`);
		expect(ready.apiKeys.readWrite).toMatch(/^bsk_/);

		// What a webhook trigger in an n8n on this machine subscribes: an http://localhost URL (n8n's default WEBHOOK_URL).
		const delivered: Array<{ type: string; data: { booking: { id: string } } }> = [];
		const n8n = createHttpServer((request, response) => {
			let body = '';
			request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
			request.on('end', () => {
				delivered.push(JSON.parse(body) as (typeof delivered)[number]);
				response.end();
			});
		});
		await new Promise<void>((resolve) => n8n.listen(0, '127.0.0.1', resolve));
		const n8nPort = (n8n.address() as AddressInfo).port;
		const headers = { authorization: `Bearer ${ready.apiKeys.readWrite}`, 'content-type': 'application/json' };
		const subscribed = await fetch(`${ready.baseUrl}/webhooks`, {
			method: 'POST',
			headers,
			body: JSON.stringify({ url: `http://localhost:${n8nPort}/webhook/readme`, events: ['booking.created'] }),
		});
		expect(subscribed.status).toBe(201);
		const before = new Date(Date.now() - 1_000).toISOString();

		// A booking as the Booking Service node makes it: the first free slot of the (free, active) intro call.
		const eventTypes = (await (await fetch(`${ready.baseUrl}/event-types?active=true`, { headers })).json()) as {
			items: Array<{ id: string; slug: string }>;
		};
		const eventTypeId = eventTypes.items.find((eventType) => eventType.slug === 'intro-call')!.id;
		const today = new Date().toISOString().slice(0, 10);
		const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
		const slots = (await (
			await fetch(`${ready.baseUrl}/event-types/${eventTypeId}/slots?from=${today}&to=${inAWeek}`, { headers })
		).json()) as { slots: string[] };
		const created = await fetch(`${ready.baseUrl}/bookings`, {
			method: 'POST',
			headers,
			body: JSON.stringify({
				eventTypeId,
				start: slots.slots[0],
				booker: { name: 'Readme Reader', email: 'reader@example.com', timezone: 'Europe/Berlin' },
			}),
		});
		expect(created.status).toBe(201);
		const booking = (await created.json()) as { id: string };

		const [everyBooking, asTheNodesRead] = blocks[1]!.split('\n');
		const control = JSON.parse(runAsReadmeSays(everyBooking!, port, ready)) as { items: Array<{ id: string }> };
		expect(control.items.map((item) => item.id)).toContain(booking.id);
		const listed = JSON.parse(runAsReadmeSays(asTheNodesRead!, port, ready)) as { items: Array<{ id: string }> };
		expect(listed.items.map((item) => item.id)).toContain(booking.id);

		// The triggers report it: delivered at once, and among the changes a poll asks for.
		await expect.poll(() => delivered.map((event) => [event.type, event.data.booking.id]), { timeout: 10_000 }).toEqual([
			['booking.created', booking.id],
		]);
		n8n.close();
		const changed = (await (
			await fetch(`${ready.baseUrl}/bookings?sort=-updatedAt&updatedSince=${encodeURIComponent(before)}`, { headers })
		).json()) as { items: Array<{ id: string }> };
		expect(changed.items.map((item) => item.id)).toEqual([booking.id]);
	});
});
