// The example workflows (examples/*.json) as users get them: each file imported as it is, then only what a user does —
// choose the Booking Service credential, and make the one pick a sticky note on the canvas names (through the editor's
// own list) — and then it runs against the simulator: test-run from the editor, and published. The Slack, Google Sheets
// and chat-model nodes ship disabled (no account here or in a fresh import).
import type { INode, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone } from '../../nodes/shared/time.ts';
import type { WorkflowInput, WorkflowNode } from '../n8n/client.ts';
import { asImported, readExamples, withCredentialChosen } from '../n8n/examples.ts';
import { N8N_HARNESS } from '../n8n/install.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { CREDENTIAL_TYPE, n8n } from './n8n.ts';
import { submitFirstPage, submitPage, type FormPage } from './forms.ts';
import { introCallSlots, service } from './service.ts';

const client = n8n();
let simulator: Simulator;
let credential: { id: string; name: string };
let types: INodeTypeDescription[];

beforeAll(async () => {
	simulator = await startSimulator({ allowInsecureWebhookTargets: true });
	const created = await client.createCredential({
		name: 'Booking Service (examples test)',
		type: CREDENTIAL_TYPE,
		data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
	});
	credential = { id: created.id, name: created.name };
	const response = await fetch(`${client.baseUrl}/types/nodes.json`, { headers: { cookie: client.cookie } });
	types = (await response.json()) as INodeTypeDescription[];
});

afterAll(async () => {
	if (credential) await client.api('DELETE', `/credentials/${credential.id}`);
	await simulator?.close();
});

const typeOf = (node: WorkflowNode) =>
	types.find((type) => type.name === node.type && [type.version].flat().includes(node.typeVersion))!;

/**
 * What the editor checks before it runs or listens (n8n 1.x refuses "Execute step" on any trigger while one enabled
 * node has an issue): parameter issues by n8n's own rules, and credentials a node shows as required but lacks.
 */
function issuesOf(node: WorkflowNode): string[] {
	const type = typeOf(node);
	const asNode = { id: node.name, ...node } as unknown as INode;
	const parameters = NodeHelpers.getNodeParameters(type.properties, asNode.parameters, true, false, asNode, type) ?? {};
	const resolved = { ...asNode, parameters };
	const issues = Object.keys(NodeHelpers.getNodeParametersIssues(type.properties, resolved, type)?.parameters ?? {});
	for (const needed of type.credentials ?? []) {
		if (!needed.required || !NodeHelpers.displayParameter(parameters, needed, resolved, type)) continue;
		if (!node.credentials?.[needed.name]) issues.push(`credential ${needed.name}`);
	}
	return issues;
}

const stickyNotes = (workflow: WorkflowInput) =>
	workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote').map((node) => String(node.parameters.content));

/** The editor's list behind a resource locator, as it opens when the user clicks the field (first page). */
async function listedFor(node: WorkflowNode, parameter: string, method: string): Promise<Array<{ name: string; value: string }>> {
	const { results } = await client.rest<{ results: Array<{ name: string; value: string }> }>(
		'POST',
		'/dynamic-node-parameters/resource-locator-results',
		{
			nodeTypeAndVersion: { name: node.type, version: node.typeVersion },
			path: `parameters.${parameter}`,
			methodName: method,
			currentNodeParameters: node.parameters,
			credentials: node.credentials,
		},
	);
	return results;
}

/**
 * The picks a sticky note names: every enabled node still showing an issue after the credential must be named in a
 * note, with the field to pick ("pick the event type to book in *Free slots that day*"); the pick is the list's
 * first entry, chosen as a user would, through the editor's own list.
 */
async function withNamedPicks(workflow: WorkflowInput, file: string): Promise<WorkflowInput> {
	const nodes: WorkflowNode[] = [];
	for (const node of workflow.nodes) {
		if (node.type === 'n8n-nodes-base.stickyNote' || node.disabled) {
			nodes.push(node);
			continue;
		}
		const issues = issuesOf(node);
		if (issues.length === 0) {
			nodes.push(node);
			continue;
		}
		expect(issues, `${file}: ${node.name}`).toEqual(['eventType']);
		const named = stickyNotes(workflow).some(
			(note) => note.includes(`*${node.name}*`) && /pick the event type/i.test(note) && note.includes('Event Type → From list'),
		);
		expect(named, `${file}: no sticky note says to pick the event type in ${node.name}`).toBe(true);
		const [first] = await listedFor(node, 'eventType', 'searchEventTypes');
		nodes.push({
			...node,
			parameters: { ...node.parameters, eventType: { __rl: true, mode: 'list', value: first.value, cachedResultName: first.name } },
		});
	}
	return { ...workflow, nodes };
}

/** The file, imported, set up as a user sets it up: the credential chosen and the named picks made. */
async function setUp(file: string): Promise<WorkflowInput> {
	const found = readExamples().find((entry) => entry.file === file);
	if (!found) throw new Error(`examples/${file} is missing`);
	return await withNamedPicks(withCredentialChosen(asImported(found.workflow), credential), file);
}

/** Creates and publishes workflows, runs `body`, then unpublishes and deletes them whatever happened. */
async function withPublished(workflows: WorkflowInput[], body: (ids: string[]) => Promise<void>): Promise<void> {
	const ids: string[] = [];
	try {
		for (const workflow of workflows) {
			const { id } = await client.createWorkflow(workflow);
			ids.push(id);
			await client.activate(id);
		}
		await body(ids);
	} finally {
		for (const id of ids) {
			await client.deactivate(id);
			await client.deleteWorkflow(id);
		}
	}
}

/** Creates workflows (not published), runs `body`, then deletes them whatever happened. */
async function withSaved(workflows: WorkflowInput[], body: (ids: string[]) => Promise<void>): Promise<void> {
	const ids: string[] = [];
	try {
		for (const workflow of workflows) ids.push((await client.createWorkflow(workflow)).id);
		await body(ids);
	} finally {
		for (const id of ids) await client.deleteWorkflow(id);
	}
}

/** The bookings the simulator holds for this booker, once there are `count` (a bounded wait). */
async function heldFor(email: string, count = 1) {
	const deadline = Date.now() + 30_000;
	for (;;) {
		const held = simulator.control.bookings().filter((entry) => entry.booker.email === email);
		if (held.length >= count) return held;
		if (Date.now() > deadline) throw new Error(`${held.length} of ${count} bookings for ${email} after 30 s`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

/** The intro call's free starts on a later day (in `timeZone`) with at least three: [day, starts]. */
async function dayWithFreeSlots(timeZone: string): Promise<[string, number[]]> {
	const localDay = (instant: number) => formatInZone(instant, timeZone).slice(0, 10);
	const today = localDay(Date.now());
	const slots = (await introCallSlots(simulator)).map((slot) => Date.parse(slot));
	// Not today: today's remaining slots may be gone by the time the form is sent. Not the first day listed either: the
	// list starts at a UTC midnight, so that local day may be cut (the form offers all of it).
	const firstListed = localDay(slots[0]);
	const day = slots
		.map(localDay)
		.find((candidate) => candidate > today && candidate > firstListed && slots.filter((slot) => localDay(slot) === candidate).length >= 3);
	if (!day) throw new Error('the simulator offers no day with three slots in the next weeks');
	return [day, slots.filter((slot) => localDay(slot) === day)];
}

function outputOf(execution: { data?: { resultData: { runData: Record<string, unknown[]> } } }, node: string) {
	const runs = execution.data?.resultData.runData[node] as
		| Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>
		| undefined;
	return runs?.[0]?.data?.main[0]?.map((item) => item.json) ?? [];
}

/** What the editor's "Execute workflow" / "Listen for test event" sends for a workflow saved as `id`, from `trigger`. */
async function testRun(id: string, trigger: string): Promise<{ waitingForWebhook?: boolean; executionId?: string }> {
	const workflowData = await client.rest<Record<string, unknown>>('GET', `/workflows/${id}`);
	return await client.rest('POST', `/workflows/${id}/run`, { workflowData, triggerToStartFrom: { name: trigger } });
}

describe('example workflows, imported from their files', () => {
	it('each file imports through the public API as it is', async () => {
		const examples = readExamples();
		expect(examples.map((entry) => entry.file)).toEqual([
			'ai-agent-chat-booking.json',
			'booking-events-on-a-laptop-to-slack.json',
			'form-to-booking.json',
			'new-booking-to-slack.json',
			'nightly-bookings-to-google-sheets.json',
		]);
		for (const { workflow } of examples) {
			const { id } = await client.createWorkflow(asImported(workflow));
			await client.deleteWorkflow(id);
		}
	});

	it('uses only node types and versions that this n8n has', () => {
		for (const { file, workflow } of readExamples()) {
			for (const node of workflow.nodes) {
				expect(typeOf(node), `${file}: ${node.name} (${node.type} ${node.typeVersion})`).toBeDefined();
			}
		}
	});

	it('after choosing only the credential, no issue is left but picks a sticky note names; a node without its account is disabled and named in a note', async () => {
		const disabled: string[] = [];
		const picks: string[] = [];
		for (const { file, workflow } of readExamples()) {
			const chosen = withCredentialChosen(asImported(workflow), credential);
			for (const node of chosen.nodes) {
				if (node.type === 'n8n-nodes-base.stickyNote') continue;
				const issues = issuesOf(node);
				if (node.disabled) {
					disabled.push(`${file}: ${node.name}`);
					// Its own account: the note beside it says to connect it, then enable the node.
					expect(issues.some((issue) => issue.startsWith('credential ')), `${file}: ${node.name}`).toBe(true);
					expect(stickyNotes(chosen).some((note) => note.includes(node.name)), `${file}: no note names ${node.name}`).toBe(true);
				} else if (issues.length > 0) {
					picks.push(`${file}: ${node.name}`);
				}
			}
			const setUpByUser = await withNamedPicks(chosen, file);
			for (const node of setUpByUser.nodes.filter((entry) => !entry.disabled && entry.type !== 'n8n-nodes-base.stickyNote')) {
				expect(issuesOf(node), `${file}: ${node.name}`).toEqual([]);
			}
		}
		expect(disabled).toEqual([
			'ai-agent-chat-booking.json: OpenAI Chat Model',
			'booking-events-on-a-laptop-to-slack.json: Post to Slack',
			'new-booking-to-slack.json: Post to Slack',
			"nightly-bookings-to-google-sheets.json: Append or update the booking's row",
		]);
		// One pick per example at most; the AI example's Create tool and the form's booking follow that pick.
		expect(picks).toEqual(['ai-agent-chat-booking.json: Get available slots', 'form-to-booking.json: Free slots that day']);
	});

	it('test-runs as imported: the webhook trigger listens for a test event, the polling triggers fetch one', async () => {
		const chat = await setUp('new-booking-to-slack.json');
		const laptop = await setUp('booking-events-on-a-laptop-to-slack.json');
		const nightly = await setUp('nightly-bookings-to-google-sheets.json');
		await withSaved([chat, laptop, nightly], async ([chatId, laptopId, nightlyId]) => {
			expect(await testRun(chatId, 'New booking')).toEqual({ waitingForWebhook: true });
			const [start] = await introCallSlots(simulator);
			const booked = await service<{ id: string }>(simulator, 'POST', '/bookings', {
				eventTypeId: simulator.control.eventType('intro-call').id,
				start,
				booker: { name: 'Grace Hopper', email: `grace.${Date.now()}@example.com`, timezone: 'America/New_York' },
			});
			const [chatRun] = await client.waitForExecutions(chatId, 1, 30_000);
			expect(chatRun).toMatchObject({ mode: 'manual', status: 'success' });
			expect(outputOf(chatRun, 'New booking')[0]).toMatchObject({ eventType: 'booking.created', booking: { id: booked.id } });
			expect(String(outputOf(chatRun, 'Write the message')[0].message)).toContain('Grace Hopper');

			for (const [id, trigger] of [
				[laptopId, 'Booking changes, every minute'],
				[nightlyId, 'Every night: changed bookings'],
			]) {
				expect(await testRun(id, trigger)).toMatchObject({ executionId: expect.any(String) });
				const [run] = await client.waitForExecutions(id, 1, 30_000);
				expect(run, trigger).toMatchObject({ mode: 'manual', status: 'success' });
				expect(outputOf(run, trigger).length, trigger).toBeGreaterThan(0);
			}
		});
	});

	it("the form offers that day's free times in the customer's zone, books the one chosen, and links to manage it", async () => {
		const chat = await setUp('new-booking-to-slack.json');
		const form = await setUp('form-to-booking.json');
		const formPath = form.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')?.webhookId;
		// A customer far from UTC and from n8n's default zone (one of the form's choices: n8n 1.x refuses any other).
		const customerZone = 'Pacific/Auckland';
		const [date, starts] = await dayWithFreeSlots(customerZone);
		const email = `ada.${Date.now()}@example.com`;

		await withPublished([chat, form], async ([chatId, formId]) => {
			const timePage = await submitFirstPage(`${client.webhookUrl}form/${formPath}`, ['Ada Lovelace', email, date, customerZone]);
			// Page two: exactly that day's free times, in the customer's zone, each with its offset.
			const offered = timePage.options('field-0');
			expect(offered).toEqual(starts.map((start) => `${formatInZone(start, customerZone).slice(11, 16)} UTC${formatInZone(start, customerZone).slice(19)}`));
			expect(timePage.html).toContain(customerZone.replace('_', ' '));
			const chosen = offered.length - 1; // not the first: the old example always booked the first
			const done: FormPage = await submitPage(timePage, [offered[chosen]]);

			const [stored] = await heldFor(email);
			expect(Date.parse(stored.start)).toBe(starts[chosen]);
			expect(stored.booker).toMatchObject({ name: 'Ada Lovelace', timezone: customerZone });
			expect(simulator.control.invites().filter((invite) => invite.email === email)).toHaveLength(0);
			// The last page: the booked time as local time, and the manage link as a real link.
			expect(done.html).toMatch(new RegExp(`<a href=["']${stored.manageUrl.replace(/[.?*+^$()[\]\\]/g, '\\$&')}["'][^>]*>Reschedule or cancel this booking</a>`));
			expect(done.html).toContain(formatInZone(starts[chosen], customerZone).slice(11, 16));
			if (N8N_HARNESS.formRunFinishes) {
				const runs = await client.waitForExecutions(formId, 1, 30_000);
				const [booking] = outputOf(runs[0], 'Book the chosen time');
				expect(booking).toMatchObject({ id: stored.id, localTimeZone: customerZone, manageUrl: stored.manageUrl });
			}

			// booking.created goes from the simulator to the published chat example.
			const [chatRun] = await client.waitForExecutions(chatId, 1, 30_000);
			expect(String(outputOf(chatRun, 'Write the message')[0].message)).toContain('Ada Lovelace');
		});
	});

	it('the form says nothing was booked when the chosen time is taken before the customer submits it', async () => {
		const form = await setUp('form-to-booking.json');
		const formPath = form.nodes.find((node) => node.type === 'n8n-nodes-base.formTrigger')?.webhookId;
		const customerZone = 'America/New_York';
		const [date, starts] = await dayWithFreeSlots(customerZone);
		const email = `grace.${Date.now()}@example.com`;

		await withPublished([form], async () => {
			const timePage = await submitFirstPage(`${client.webhookUrl}form/${formPath}`, ['Grace Hopper', email, date, customerZone]);
			const [first] = timePage.options('field-0');
			await service(simulator, 'POST', '/bookings', {
				eventTypeId: simulator.control.eventType('intro-call').id,
				start: new Date(starts[0]).toISOString(),
				booker: { name: 'Someone Else', email: `other.${Date.now()}@example.com`, timezone: 'UTC' },
			});
			const done = await submitPage(timePage, [first]);

			expect(done.html).toContain('We could not book that time');
			expect(simulator.control.bookings().filter((booking) => booking.booker.email === email)).toHaveLength(0);
		});
	});

	it("the nightly example writes each changed booking as one row: the host's local date and time and zone, beside UTC", async () => {
		const nightly = await setUp('nightly-bookings-to-google-sheets.json');
		const sheets = nightly.nodes.find((node) => node.type === 'n8n-nodes-base.googleSheets');
		const { ids } = simulator.control.generateBookings({ count: 3, eventTypeId: simulator.control.eventType('intro-call').id });
		// With a first sync from the past, the activation poll reports at once.
		nightly.nodes = nightly.nodes.map((node) => {
			if (node.type !== 'n8n-nodes-booking-service.bookingServicePollingTrigger') return node;
			return { ...node, parameters: { ...node.parameters, options: { startFrom: '2000-01-01T00:00:00Z' } } };
		});

		await withPublished([nightly], async ([id]) => {
			const [run] = await client.waitForExecutions(id, 1, 30_000);
			const rows = outputOf(run, 'Row for the sheet');
			expect(rows.map((row) => row.id)).toEqual(expect.arrayContaining(ids));
			expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length); // one row per booking
			const booking = simulator.control.bookings().find((entry) => entry.id === rows[0].id)!;
			const local = (instant: string) => formatInZone(Date.parse(instant), booking.hostTimezone).slice(0, 16).replace('T', ' ');
			expect(rows[0]).toEqual({
				id: booking.id,
				status: expect.any(String),
				lastEvent: expect.stringMatching(/^booking\./),
				eventType: expect.any(String),
				startLocal: local(booking.start),
				endLocal: local(booking.end),
				timeZone: booking.hostTimezone,
				startUtc: booking.start,
				endUtc: booking.end,
				bookerName: expect.any(String),
				bookerEmail: expect.stringContaining('@'),
				updatedAt: expect.stringMatching(/Z$/),
			});
			expect(sheets?.parameters).toMatchObject({ operation: 'appendOrUpdate', columns: { matchingColumns: ['id'] } });
		});
	});
});
