// `npm run contract` end to end: the command runs as its own process and fetches real documents over HTTP on
// 127.0.0.1 — the simulator's own (no drift), and copies of it altered in each way the API could move — and each
// change is reported as its class, naming the exact item, with the exit code the issue asks for.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startSimulator } from '../simulator/index.ts';
import type { Simulator } from '../simulator/index.ts';
import type { DriftReport } from './report.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
type Doc = Record<string, any>;

let sim: Simulator;
let served: Server;
let origin: string;
let original: Doc;
/** What the local server answers at `/<name>/openapi.json`. */
const answers = new Map<string, { type: string; body: string; status?: number }>();

beforeAll(async () => {
	sim = await startSimulator({ rateLimit: false });
	original = (await (await fetch(`${sim.baseUrl}/openapi.json`)).json()) as Doc;
	served = createServer((request, response) => {
		const answer = answers.get(new URL(request.url ?? '/', 'http://x').pathname.split('/')[1]);
		if (answer === undefined) response.writeHead(404).end();
		else response.writeHead(answer.status ?? 200, { 'Content-Type': answer.type }).end(answer.body);
	});
	served.listen(0, '127.0.0.1');
	await once(served, 'listening');
	origin = `http://127.0.0.1:${(served.address() as AddressInfo).port}`;
});

afterAll(async () => {
	served?.closeAllConnections();
	served?.close();
	await sim?.close();
});

async function runCommand(args: string[], command = process.execPath, prefix = ['test/contract/cli.ts']) {
	const child = spawn(command, [...prefix, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
	const [code] = (await once(child, 'exit')) as [number];
	return { code, stdout };
}

/** Serves `alter(copy of the simulator's document)` and runs the check against it with --json. */
async function checkAltered(name: string, alter: (doc: Doc) => void): Promise<DriftReport> {
	const doc = structuredClone(original);
	alter(doc);
	answers.set(name, { type: 'application/json', body: JSON.stringify(doc) });
	const { code, stdout } = await runCommand(['--base-url', `${origin}/${name}`, '--json']);
	const report = JSON.parse(stdout) as DriftReport;
	expect(report.exitCode).toBe(code);
	return report;
}

const itemsOf = (report: DriftReport, found: string) =>
	(report.findings ?? []).filter((finding) => finding.class === found).map((finding) => finding.item);

describe("the simulator's document", () => {
	it('has nothing breaking and nothing new; its info items are the findings docs/maintainers/api-drift.md lists', async () => {
		const { code, stdout } = await runCommand(['--base-url', sim.baseUrl, '--json']);
		const report = JSON.parse(stdout) as DriftReport;
		expect(code).toBe(0);
		expect(report.summary).toMatchObject({ breaking: 0, new: 0 });
		expect(itemsOf(report, 'info')).toEqual([
			'BookingRescheduledEvent.data.previous',
			'error codes',
			'GET /bookings query status',
			'webhook headers',
		]);
	});

	it('checks through `npm run contract`, printing plain words', async () => {
		const { code, stdout } = await runCommand(['run', '-s', 'contract', '--', '--base-url', sim.baseUrl], 'npm', []);
		expect(code).toBe(0);
		expect(stdout).toContain(`Document: ${sim.baseUrl}/openapi.json`);
		expect(stdout).toContain('0 breaking, 0 new, 4 info: nothing breaking (exit 0).');
	});
});

describe('a document that moved', () => {
	it('a removed path is breaking, naming the operation (exit 1)', async () => {
		const report = await checkAltered('removed-path', (doc) => delete doc.paths['/invites']);
		expect(report.exitCode).toBe(1);
		expect(itemsOf(report, 'breaking')).toEqual(['POST /invites']);
	});

	it('a removed enum value the nodes offer is breaking, naming the parameter and the value', async () => {
		const report = await checkAltered('removed-enum-value', (doc) => {
			const sort = doc.paths['/bookings'].get.parameters.find((parameter: Doc) => parameter.name === 'sort');
			sort.schema.enum = sort.schema.enum.filter((value: string) => value !== '-start');
		});
		expect(itemsOf(report, 'breaking')).toEqual(['GET /bookings query sort "-start"']);
	});

	it('a renamed answer field is breaking once, where the object is defined, listing where the nodes read it', async () => {
		const report = await checkAltered('renamed-field', (doc) => {
			const booking = doc.components.schemas.Booking;
			booking.properties.startsAt = booking.properties.start;
			delete booking.properties.start;
			booking.required = booking.required.map((name: string) => (name === 'start' ? 'startsAt' : name));
		});
		expect(itemsOf(report, 'breaking')).toEqual(['Booking.start']);
		const gone = report.findings!.find((finding) => finding.item === 'Booking.start')!;
		expect(gone.where).toEqual(expect.arrayContaining(['GET /bookings', 'GET /bookings/{id}', 'webhook booking.created']));
		expect(itemsOf(report, 'info')).toContain('Booking.startsAt');
	});

	it('a new required request field is breaking, naming the body field', async () => {
		const report = await checkAltered('new-required-field', (doc) => {
			const body = doc.components.schemas.CreateBookingRequest;
			body.properties.channel = { type: 'string' };
			body.required.push('channel');
		});
		expect(itemsOf(report, 'breaking')).toEqual(['POST /bookings body channel']);
	});

	it('a new event kind is new, not breaking (exit 0)', async () => {
		const report = await checkAltered('new-event-kind', (doc) => {
			doc.webhooks['booking.paid'] = structuredClone(doc.webhooks['booking.created']);
		});
		expect(report.exitCode).toBe(0);
		expect(itemsOf(report, 'new')).toEqual(['webhook booking.paid']);
	});

	it('new operations — such as the two webhook operations the contract does not show — are new', async () => {
		const report = await checkAltered('new-operations', (doc) => {
			doc.paths['/webhooks'].get = { operationId: 'listWebhooks', responses: { 200: { description: 'The subscriptions' } } };
			doc.paths['/webhooks/{id}'].patch = { operationId: 'updateWebhook', responses: { 200: { description: 'Updated' } } };
		});
		expect(report.exitCode).toBe(0);
		expect(itemsOf(report, 'new')).toEqual(['GET /webhooks', 'PATCH /webhooks/{id}']);
	});

	it('a new required answer field the output would miss is breaking; one the output passes on is info', async () => {
		const report = await checkAltered('new-answer-fields', (doc) => {
			const slots = doc.components.schemas.Slots;
			slots.properties.timezone = { type: 'string' };
			slots.required.push('timezone');
			doc.components.schemas.Booking.properties.tags = { type: 'array', items: { type: 'string' } };
		});
		expect(itemsOf(report, 'breaking')).toEqual(['Slots.timezone']);
		expect(itemsOf(report, 'info')).toContain('Booking.tags');
	});

	it('a changed type, a tighter limit and a changed scope are breaking', async () => {
		const report = await checkAltered('changed', (doc) => {
			doc.components.schemas.Booking.properties.status = { type: 'integer' };
			doc.components.schemas.CreateBookingRequest.properties.notes.maxLength = 500;
			doc.paths['/bookings'].get['x-required-scope'] = 'bookings:write';
		});
		expect(itemsOf(report, 'breaking')).toEqual(['Booking.status', 'GET /bookings scope', 'POST /bookings body notes']);
	});
});

describe('a document the reader must not trip over', () => {
	it('a recursive schema is read once per path; a field added to an object the nodes pass on is info (exit 0)', async () => {
		const report = await checkAltered('recursive', (doc) => {
			const booking = doc.components.schemas.Booking;
			booking.properties.rescheduledFrom = { oneOf: [{ $ref: '#/components/schemas/Booking' }, { type: 'null' }] };
			booking.properties.related = { type: 'array', items: { $ref: '#/components/schemas/Booking' } };
		});
		expect(report.exitCode).toBe(0);
		expect(itemsOf(report, 'info')).toEqual(expect.arrayContaining(['Booking.rescheduledFrom', 'Booking.related']));
	});

	it('a $ref that never ends cannot be read (exit 2)', async () => {
		const report = await checkAltered('ref-cycle', (doc) => {
			doc.components.schemas.Loop = { $ref: '#/components/schemas/Loop' };
			doc.components.schemas.Booking.properties.loop = { $ref: '#/components/schemas/Loop' };
		});
		expect(report.failure).toEqual({ stage: 'read', message: 'its $ref #/components/schemas/Loop never ends (a cycle)' });
	});
});

describe('the issue the scheduled workflow files', () => {
	it('is the report in Markdown, one row per finding, marked so each run finds and updates the same issue', async () => {
		const report = await checkAltered('issue', (doc) => delete doc.paths['/invites']);
		const file = join(mkdtempSync(join(tmpdir(), 'drift-')), 'drift.json');
		writeFileSync(file, JSON.stringify(report));
		const { code, stdout } = await runCommand([file], process.execPath, ['test/contract/issue-body.ts']);
		expect(code).toBe(0);
		expect(stdout.split('\n')[0]).toBe('<!-- booking-service-api-drift -->');
		expect(stdout).toContain('1 breaking, 0 new, 4 info: the nodes would fail (exit 1).');
		expect(stdout).toContain('| `POST /invites` | is gone from the document; used by Invite → Create |  |');
	});
});

describe('a document that cannot be read: exit 2, saying what failed, nothing compared', () => {
	it('an unreachable URL', async () => {
		const closed = createServer();
		closed.listen(0, '127.0.0.1');
		await once(closed, 'listening');
		const port = (closed.address() as AddressInfo).port;
		closed.close();
		const { code, stdout } = await runCommand(['--base-url', `http://127.0.0.1:${port}/v1`]);
		expect(code).toBe(2);
		expect(stdout).toContain(`Could not fetch the document: could not connect (ECONNREFUSED)`);
		expect(stdout).toContain(`http://127.0.0.1:${port}/v1/openapi.json`);
	});

	it('an answer that is not JSON', async () => {
		answers.set('html', { type: 'text/html', body: '<html>Down for maintenance</html>' });
		const { code, stdout } = await runCommand(['--base-url', `${origin}/html`, '--json']);
		expect(code).toBe(2);
		expect(JSON.parse(stdout)).toMatchObject({
			failure: { stage: 'parse', message: 'the answer is not JSON (text/html; it begins "<html>Down for maintenance</html>")' },
			exitCode: 2,
		});
		expect(JSON.parse(stdout).findings).toBeUndefined();
	});

	it('an error status, and JSON that is not an OpenAPI document', async () => {
		answers.set('down', { type: 'application/json', body: '{}', status: 503 });
		answers.set('not-openapi', { type: 'application/json', body: '{"swagger":"2.0","paths":{}}' });
		const down = await runCommand(['--base-url', `${origin}/down`, '--json']);
		expect([down.code, JSON.parse(down.stdout).failure]).toEqual([2, { stage: 'fetch', message: 'the service answered HTTP 503 Service Unavailable' }]);
		const other = await runCommand(['--base-url', `${origin}/not-openapi`, '--json']);
		expect([other.code, JSON.parse(other.stdout).failure.stage]).toEqual([2, 'read']);
		expect(JSON.parse(other.stdout).failure.message).toContain('not an OpenAPI 3 document');
	});
});
