/**
 * What the editor panel says, computed as n8n computes it: the issues of a By ID field holding a slug (n8n-workflow's
 * own getNodeParametersIssues, which the editor lists under the node and in "Workflow execution cannot start"), and
 * Create's Start hint, whose expressions must read what Get Available Slots outputs.
 */
import type { INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';
import { bookingServiceNode, runWorkflow } from '../harness/engine.ts';
import { createBookingParameters, credentialsFor, eventTypeId, useTestSimulator } from '../harness/fixtures.ts';

const sim = useTestSimulator();
const description = new BookingService().description;

/** The node's issues as the editor lists them, for these parameters. */
function panelIssues(parameters: INodeParameters): string[] {
	const node: INode = {
		id: 'n',
		name: 'Node',
		type: 'n8n-nodes-booking-service.bookingService',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	node.parameters = NodeHelpers.getNodeParameters(description.properties, parameters, true, false, node, description)!;
	const issues = NodeHelpers.getNodeParametersIssues(description.properties, node, description);
	return Object.values(issues?.parameters ?? {}).flat();
}

const SLUG = 'intro-call';
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const ID_SENTENCE =
	'must be an ID of 24 lowercase hexadecimal characters (0-9, a-f), e.g. 65f1c0ffee0123456789abcd, not a name or slug: choose From List to pick it by name';

describe('By ID with a name or slug', () => {
	it.each<[string, INodeParameters, string]>([
		['Booking → Create', { ...createBookingParameters('x', '2026-12-01T10:00:00'), eventType: byId(SLUG) }, 'Event Type'],
		['Event Type → Get Available Slots', { resource: 'eventType', operation: 'getSlots', eventType: byId(SLUG) }, 'Event Type'],
		['Invite → Create', { resource: 'invite', operation: 'create', eventType: byId(SLUG) }, 'Event Type'],
		['Booking → Get', { resource: 'booking', operation: 'get', bookingId: byId('jane-booking') }, 'Booking'],
		['Booking → Cancel', { resource: 'booking', operation: 'cancel', bookingId: byId('jane-booking') }, 'Booking'],
	])('%s: the panel lists one issue, naming the field', (_operation, parameters, label) => {
		expect(panelIssues(parameters)).toEqual([`${label} ${ID_SENTENCE}`]);
	});

	it("Booking → Get Many's Event Type filter is checked where it is, not against another operation's field", () => {
		expect(panelIssues({ resource: 'booking', operation: 'getMany', filters: { email: 'jane@example.com' } })).toEqual([]);
	});

	it("n8n's engine refuses to start the run, listing the issue once", async () => {
		const run = runWorkflow({
			nodes: [bookingServiceNode('Book', { ...createBookingParameters('x', '2026-03-10T10:00:00Z'), eventType: byId(SLUG) })],
			credentials: credentialsFor(sim),
		});

		await expect(run).rejects.toThrow(`The 'Book' node has issues:\n- Event Type ${ID_SENTENCE}`);
	});

	it("a slug from an expression: the node's own check says the same rule, with the value and the item, and sends nothing", async () => {
		sim.control.clearRequests();
		const result = await runWorkflow({
			nodes: [bookingServiceNode('Book', { ...createBookingParameters('x', '2026-03-10T10:00:00Z'), eventType: byId('={{ $json.eventType }}') })],
			startItems: [{ eventType: SLUG }],
			credentials: credentialsFor(sim),
		});

		expect(result.error!.message).toBe(
			`Event Type must be an ID of 24 lowercase hexadecimal characters (0-9, a-f), e.g. 65f1c0ffee0123456789abcd, not a name or slug (got "${SLUG}") [item 0]`,
		);
		expect(sim.control.requests()).toEqual([]);
	});
});

describe("Create's Start hint", () => {
	const start = description.properties.find(
		(property) => property.name === 'start' && property.displayOptions?.show?.operation?.includes('create'),
	)!;
	const hintExpressions = [...(start.hint ?? '').matchAll(/\{\{\s*(.+?)\s*\}\}/g)].map((match) => match[1]);

	it('says Create books once per incoming item, and that 40 slot items make 40 bookings', () => {
		expect(start.hint).toMatch(/^One booking per incoming item\./);
		expect(start.hint).toMatch(/40 slot items make 40 bookings/);
	});

	it("names the zone a value without Z or an offset is read in, as Create reads it (engine/time-zones): the workflow's, or the Time Zone option", () => {
		expect(start.hint).toContain(
			"A value without Z or an offset is read in the workflow's time zone (Workflow Settings → Timezone) or the Time Zone option, not your computer's",
		);
	});

	it.each([
		['One Item per Slot', 'itemPerSlot'],
		['One Item With All Slots', 'oneItem'],
	])('names an expression that books from Get Available Slots\' "%s" item', async (outputName, output) => {
		const slots = await runWorkflow({
			nodes: [
				bookingServiceNode('Slots', {
					resource: 'eventType',
					operation: 'getSlots',
					eventType: byId(eventTypeId(sim, 'intro-call')),
					from: '2026-03-03',
					to: '2026-03-03',
					output,
				}),
			],
			credentials: credentialsFor(sim),
		});
		const [first] = slots.items.Slots;
		const firstSlot = (first.json.slot ?? (first.json.slots as string[])[0]) as string;
		const expression = hintExpressions.find((candidate) => start.hint!.includes(`{{ ${candidate} }} after ${outputName}`));
		expect(expression, `the hint names an expression for ${outputName}`).toBeDefined();

		const booked = await runWorkflow({
			nodes: [bookingServiceNode('Book', createBookingParameters(eventTypeId(sim, 'intro-call'), `={{ ${expression} }}`))],
			startItems: [first.json],
			credentials: credentialsFor(sim),
		});
		expect(booked.error).toBeUndefined();
		expect(Date.parse(booked.items.Book[0].json.start as string)).toBe(Date.parse(firstSlot));
	});
});

describe("n8n's node panel entry", () => {
	// n8n's editor (generateMergedNodesAndActions in editor-ui, 2.41.1) shows an action node and the trigger named like
	// it plus "Trigger" as one entry, with the trigger's description — in "What happens next?" too.
	const triggers = [new BookingServiceTrigger().description, new BookingServicePollingTrigger().description];
	const mergedInto = (trigger: { name: string }) => trigger.name.replace('Trigger', '');

	it('"Booking Service" takes the webhook trigger\'s description, which says what the action node does too', () => {
		const lending = triggers.filter((trigger) => mergedInto(trigger) === description.name);
		expect(lending.map((trigger) => trigger.displayName)).toEqual(['Booking Service Trigger']);
		const shown = lending[0].description;
		expect(shown).toMatch(/^Create, list and cancel bookings, check free times, and start workflows when/);
		expect(shown).not.toMatch(/^Starts the workflow/);
	});
});
