/**
 * Where a builder picks a date or a time in the panel, the field itself says which zone the value is read in: the
 * workflow's (or the operation's Time Zone option), not the computer's, whose clock the date picker's Now fills in.
 * Each dateTime field and each day field of every node, in collections too.
 */
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { describe, expect, it } from 'vitest';

import { BookingService } from '../../nodes/BookingService/BookingService.node.ts';
import { BookingServicePollingTrigger } from '../../nodes/BookingServicePollingTrigger/BookingServicePollingTrigger.node.ts';
import { BookingServiceTrigger } from '../../nodes/BookingServiceTrigger/BookingServiceTrigger.node.ts';

function timeFields(description: INodeTypeDescription): Array<{ label: string; field: INodeProperties }> {
	const found: Array<{ label: string; field: INodeProperties }> = [];
	const visit = (properties: INodeProperties[], where: string) => {
		for (const field of properties) {
			const show = field.displayOptions?.show;
			const place = show ? ` (${[show.resource, show.operation].flat().filter(Boolean).join(' ')})` : where;
			const isDay = field.type === 'string' && /YYYY-MM-DD/.test(field.description ?? '');
			if (field.type === 'dateTime' || isDay) found.push({ label: `${description.displayName}: ${field.displayName}${place}`, field });
			for (const entry of (field.options ?? []) as Array<INodeProperties | { values: INodeProperties[] }>) {
				if ('values' in entry) visit(entry.values, place);
				else if ('type' in entry) visit([entry], place);
			}
		}
	};
	visit(description.properties, '');
	return found;
}

describe('a date or time picked in the panel says which zone it is read in', () => {
	const fields = [BookingService, BookingServiceTrigger, BookingServicePollingTrigger].flatMap((Node) =>
		timeFields(new Node().description),
	);

	it('finds the date and day fields (Get Many filters, Get Available Slots days, Create, the polling Start From)', () => {
		expect(fields.map(({ label }) => label).sort()).toEqual([
			'Booking Service Polling Trigger: Start From',
			'Booking Service: From (eventType getSlots)',
			'Booking Service: Start (booking create)',
			'Booking Service: Start From (booking getMany)',
			'Booking Service: Start To (booking getMany)',
			'Booking Service: To (eventType getSlots)',
			'Booking Service: Updated Since (booking getMany)',
		]);
	});

	it.each(fields.map(({ label }) => label))('%s', (label) => {
		const { field } = fields.find((candidate) => candidate.label === label)!;
		expect(field.hint, 'shown under the field, not only in a tooltip').toMatch(/the workflow's time zone \(Workflow Settings → Timezone\)/);
		if (field.type === 'dateTime') expect(field.hint).toMatch(/not your computer's/);
		if (!label.startsWith('Booking Service Polling Trigger')) expect(field.hint).toContain('the Time Zone option');
	});
});
