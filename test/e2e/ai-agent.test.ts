// The AI receptionist example (examples/ai-agent-chat-booking.json) in a real n8n: its Chat Trigger, AI Agent and
// the Booking Service node as the agent's tools, against the simulator. Only the model is a double
// (./model-double.ts): each scenario scripts the model's turns, and each turn reads what the model was shown — the
// tool results and error texts asserted here are the ones a real model would get. The same tools also serve outside
// agents through n8n's MCP Server Trigger, driven by the official MCP client. Runs on n8n 2.41.1 and 1.123.81;
// skipped on 2.16.1 to keep CI's time.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone, formatUtc } from '../../nodes/shared/time.ts';
import type { N8nClient } from '../n8n/client.ts';
import { firstEventType, prepareExample, readExamples } from '../n8n/examples.ts';
import { N8N_VERSION } from '../n8n/install.ts';
import { startSimulator, type Booking, type Simulator } from '../simulator/index.ts';
import { agentWorkflow, instantOfStart, mcpWorkflow, postChat, startsOf, toolError, toolResult, type DaySlots } from './agent-support.ts';
import { latestToolResults, startModelDouble, textOf, type ModelDouble, type ModelRequest } from './model-double.ts';
import { CREDENTIAL_TYPE, n8n } from './n8n.ts';
import { service } from './service.ts';

const EXAMPLE = 'ai-agent-chat-booking.json';
const TOOLS = ['Get_available_slots', 'Create_booking', 'Find_bookings_by_email', 'Cancel_booking'];
/** The business's zone (the workflow's) and the customer's: different days and offsets, so a mix-up shows. */
const BUSINESS_ZONE = 'America/New_York';
const CUSTOMER_ZONE = 'Europe/Berlin';
const DAY_MS = 86_400_000;

let client: N8nClient;
let simulator: Simulator;
let model: ModelDouble;
const workflowIds: string[] = [];
let chatUrl: string;
let mcpUrl: string;
/** What the model received, for the figures in docs/ai-agents.md: printed once at the end. */
const measured: Record<string, string | number> = {};

const localDay = (instant: number, zone = BUSINESS_ZONE) => formatInZone(instant, zone).slice(0, 10);
/** The first Monday-to-Friday date (business zone) at least `days` days from now. */
const weekdayFrom = (days: number) =>
	Array.from({ length: 7 }, (_, offset) => localDay(Date.now() + (days + offset) * DAY_MS)).find(
		(date) => ![0, 6].includes(new Date(`${date}T12:00:00Z`).getUTCDay()),
	)!;
const bookingsOf = (email: string): Booking[] =>
	simulator.control.bookings().filter((booking) => booking.booker.email === email);

/** One customer message through the chat; the model's scripted turns must all have run, none failing. */
async function chat(sessionId: string, chatInput: string): Promise<string> {
	const { status, text } = await postChat(chatUrl, sessionId, chatInput);
	expect(status, text).toBe(200);
	expect(model.failures).toEqual([]);
	expect(model.pending()).toBe(0);
	return String((JSON.parse(text) as { output?: unknown }).output);
}

describe.skipIf(N8N_VERSION === '2.16.1')('the AI agent example in n8n, with a scripted model', () => {
	beforeAll(async () => {
		client = n8n();
		simulator = await startSimulator();
		model = await startModelDouble();
		const booking = await client.createCredential({
			name: 'Booking Service (AI agent test)',
			type: CREDENTIAL_TYPE,
			data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
		});
		const openAi = await client.createCredential({
			name: 'Model double (AI agent test)',
			type: 'openAiApi',
			data: { apiKey: 'sk-model-double', url: model.baseUrl, header: false },
		});
		const example = readExamples().find((entry) => entry.file === EXAMPLE);
		if (!example) throw new Error(`examples/${EXAMPLE} is missing`);
		const context = {
			credential: { id: booking.id, name: booking.name },
			eventType: await firstEventType(simulator.baseUrl, simulator.apiKeys.readWrite),
		};
		const agent = agentWorkflow(prepareExample(example.workflow, context), openAi, client.webhookUrl, BUSINESS_ZONE);
		const mcp = mcpWorkflow(agent.workflow, client.webhookUrl, BUSINESS_ZONE);
		chatUrl = agent.chatUrl;
		mcpUrl = mcp.mcpUrl;
		// One after the other: n8n 1.x on SQLite refuses concurrent workflow writes.
		for (const workflow of [agent.workflow, mcp.workflow]) {
			const { id } = await client.createWorkflow(workflow);
			workflowIds.push(id);
			await client.activate(id);
		}
	});

	afterAll(async () => {
		for (const id of workflowIds) {
			await client.deactivate(id).catch(() => undefined);
			await client.deleteWorkflow(id).catch(() => undefined);
		}
		process.stderr.write(`[ai-agent] n8n ${N8N_VERSION}: ${JSON.stringify(measured)}\n`);
		await model?.close();
		await simulator?.close();
	});

	it("books the slot the customer chose in their own zone, after an invalid email is sent back with what to do", async () => {
		const email = `ada.${randomUUID().slice(0, 8)}@example.com`;
		const from = localDay(Date.now() + DAY_MS);
		const to = localDay(Date.now() + 31 * DAY_MS);
		let wanted = '';
		let chosen = '';
		model.script(
			(request) => {
				const system = textOf(request.messages[0]);
				expect(system).toContain(BUSINESS_ZONE);
				expect(request.tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
				const create = request.tools.find((tool) => tool.name === 'Create_booking')!;
				expect(create.description).toMatch(/without an offset is read in the business's time zone/);
				expect(create.parameters.properties?.start?.description).toMatch(/offset kept, e\.g\. 2026-03-02T09:00 UTC\+01:00/);
				return { call: [{ tool: 'Get_available_slots', args: { from, to } }] };
			},
			(request) => {
				measured.slots31DaysBytes = Buffer.byteLength(latestToolResults(request)[0]);
				const result = toolResult(request);
				expect(result).toMatchObject({ timeZone: BUSINESS_ZONE, from, to, calendarBlocked: false });
				const days = result.days as DaySlots[];
				measured.slots31DaysCount = Number(result.slotCount);
				// The customer asked for a time in Berlin; the model converts it and finds it among the listed starts.
				chosen = startsOf(days)[Math.floor(startsOf(days).length / 2)];
				wanted = formatInZone(instantOfStart(chosen), CUSTOMER_ZONE);
				return {
					call: [
						{
							tool: 'Create_booking',
							args: { start: chosen, customer_name: 'Ada Lovelace', customer_email: 'ada at example', customer_time_zone: CUSTOMER_ZONE },
						},
					],
				};
			},
			(request) => {
				measured.invalidEmailError = latestToolResults(request)[0];
				const error = toolError(request);
				// The next step joins the message only here, where a model reads it (a workflow's reader gets what to change).
				expect(error.message).toMatch(
					/^Booker Email must be an email address such as jane@example\.com \(got "ada at example"\)\. Nothing was sent; ask the customer for their email address again\. \[item 0\]$/,
				);
				expect(error).not.toHaveProperty('httpCode');
				return {
					call: [
						{
							tool: 'Create_booking',
							args: { start: chosen, customer_name: 'Ada Lovelace', customer_email: email, customer_time_zone: CUSTOMER_ZONE },
						},
					],
				};
			},
			(request) => {
				measured.createBytes = Buffer.byteLength(latestToolResults(request)[0]);
				const booking = toolResult(request);
				expect(Date.parse(String(booking.start))).toBe(instantOfStart(chosen));
				expect(booking).toMatchObject({ status: 'confirmed', localTimeZone: BUSINESS_ZONE, bookerEmail: email });
				return { say: `Booked for ${wanted} your time.` };
			},
		);

		const answer = await chat(randomUUID(), `Hi, I'm Ada (${email}), in Berlin. Can I have an intro call?`);

		expect(answer).toBe(`Booked for ${wanted} your time.`);
		const [held, ...more] = bookingsOf(email);
		expect(more).toEqual([]);
		expect(Date.parse(held.start)).toBe(Date.parse(wanted));
		expect(held.booker).toMatchObject({ name: 'Ada Lovelace', timezone: CUSTOMER_ZONE });
	});

	it('recovers from a slot taken meanwhile by asking for the slots again', async () => {
		const email = `grace.${randomUUID().slice(0, 8)}@example.com`;
		const day = weekdayFrom(5);
		let taken = '';
		let second = '';
		const book = (start: string) => ({
			call: [{ tool: 'Create_booking', args: { start, customer_name: 'Grace Hopper', customer_email: email, customer_time_zone: BUSINESS_ZONE } }],
		});
		const slotsOf = (request: ModelRequest) => startsOf(toolResult(request).days as DaySlots[]);
		model.script(
			() => ({ call: [{ tool: 'Get_available_slots', args: { from: day, to: day } }] }),
			async (request) => {
				taken = slotsOf(request).at(-1) ?? '';
				// Another customer takes that time while this one is still deciding.
				await service(simulator, 'POST', '/bookings', {
					eventTypeId: simulator.control.eventType('intro-call').id,
					start: formatUtc(instantOfStart(taken)),
					booker: { name: 'Someone Else', email: `other.${randomUUID()}@example.com`, timezone: 'UTC' },
				});
				return book(taken);
			},
			(request) => {
				measured.slotTakenError = latestToolResults(request)[0];
				expect(toolError(request)).toMatchObject({
					message: expect.stringMatching(
						/^The start \S+ \S+ \(\S+\) is no longer free: the same time is free on other days, so it was most likely booked .*; no booking was made\. The nearest free times: .*\. Offer the customer the nearest free times named here, and book one only after they choose it\.$/,
					),
					httpCode: '409',
					code: 'slot_unavailable',
				});
				return { call: [{ tool: 'Get_available_slots', args: { from: day, to: day } }] };
			},
			(request) => {
				const again = slotsOf(request);
				expect(again).not.toContain(taken);
				second = again.at(-1) ?? '';
				return book(second);
			},
			() => ({ say: 'That time was just taken; I booked the next one.' }),
		);

		await chat(randomUUID(), `Grace here (${email}). The last slot in five days, please.`);

		expect(bookingsOf(email).map((booking) => Date.parse(booking.start))).toEqual([instantOfStart(second)]);
	});

	it("looks up the customer's booking by email and cancels it", async () => {
		const email = `alan.${randomUUID().slice(0, 8)}@example.com`;
		const { slots } = await service<{ slots: string[] }>(
			simulator,
			'GET',
			`/event-types/${simulator.control.eventType('intro-call').id}/slots?from=${localDay(Date.now() + 7 * DAY_MS)}&to=${localDay(Date.now() + 14 * DAY_MS)}&timezone=UTC`,
		);
		const made = await service<Booking>(simulator, 'POST', '/bookings', {
			eventTypeId: simulator.control.eventType('intro-call').id,
			start: slots[0],
			booker: { name: 'Alan Turing', email, timezone: 'UTC' },
		});
		model.script(
			() => ({ call: [{ tool: 'Find_bookings_by_email', args: { customer_email: email } }] }),
			(request) => {
				const [text] = latestToolResults(request);
				measured.findBytes = Buffer.byteLength(text);
				expect(toolResult(request)).toMatchObject({ id: made.id, status: 'confirmed', bookerEmail: email });
				return { call: [{ tool: 'Cancel_booking', args: { booking_id: made.id } }] };
			},
			(request) => {
				expect(toolResult(request)).toMatchObject({ id: made.id, status: 'cancelled' });
				return { say: 'Your intro call is cancelled.' };
			},
		);

		expect(await chat(randomUUID(), `Please cancel my intro call, I'm ${email}.`)).toBe('Your intro call is cancelled.');
		expect(bookingsOf(email).map((booking) => booking.status)).toEqual(['cancelled']);
	});

	it('a day without slots comes back empty, and a time invented for it is refused', async () => {
		const email = `kat.${randomUUID().slice(0, 8)}@example.com`;
		// The next Saturday in the business's zone: the intro call is offered Monday to Friday.
		const saturday = Array.from({ length: 7 }, (_, offset) => Date.now() + (offset + 2) * DAY_MS)
			.map((instant) => localDay(instant))
			.find((date) => new Date(`${date}T12:00:00Z`).getUTCDay() === 6)!;
		model.script(
			() => ({ call: [{ tool: 'Get_available_slots', args: { from: saturday, to: saturday } }] }),
			(request) => {
				expect(toolResult(request)).toMatchObject({ slotCount: 0, days: [] });
				measured.emptyDayResult = latestToolResults(request)[0];
				return {
					call: [{ tool: 'Create_booking', args: { start: `${saturday}T10:00`, customer_name: 'Katherine Johnson', customer_email: email, customer_time_zone: BUSINESS_ZONE } }],
				};
			},
			(request) => {
				expect(toolError(request)).toMatchObject({
					message: expect.stringMatching(/is on a day without free times for this event type \(outside the host's hours, or fully booked\); no booking was made\. The nearest free times: /),
				});
				return { say: 'Nothing is free that Saturday.' };
			},
		);

		expect(await chat(randomUUID(), `Saturday at 10, please. ${email}`)).toBe('Nothing is free that Saturday.');
		expect(bookingsOf(email)).toEqual([]);
		// The key never reaches the model: not in a tool result, an error or the tools' descriptions.
		expect(JSON.stringify(model.requests)).not.toContain(simulator.apiKeys.readWrite);
	});

	it('outside agents: an MCP client lists the same tools and books through them', async () => {
		const mcp = new Client({ name: 'booking-service-e2e', version: '1.0.0' });
		await mcp.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
		try {
			const { tools } = await mcp.listTools();
			expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort());
			const day = localDay(Date.now() + 9 * DAY_MS);
			const slots = await mcp.callTool({ name: 'Get_available_slots', arguments: { from: day, to: localDay(Date.now() + 16 * DAY_MS) } });
			const [first] = slots.content as Array<{ type: string; text: string }>;
			const listed = JSON.parse(first.text) as unknown;
			const { days } = (Array.isArray(listed) ? listed[0] : listed) as { days: DaySlots[] };
			const start = startsOf(days)[0];
			const email = `mcp.${randomUUID().slice(0, 8)}@example.com`;
			await mcp.callTool({
				name: 'Create_booking',
				arguments: { start, customer_name: 'Outside Agent', customer_email: email, customer_time_zone: BUSINESS_ZONE },
			});
			expect(bookingsOf(email).map((booking) => Date.parse(booking.start))).toEqual([instantOfStart(start)]);
		} finally {
			await mcp.close();
		}
	});
});
