// One production poll: where it starts (its own position, the one taken at activation, or a new one), then the scan
// of changed bookings — within n8n's poll budget, keeping what it finished.
import type { IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Booking } from '../shared/booking';
import { fetchListPage } from '../shared/paging';
import type { Page } from '../shared/paging';
import { startingState } from './activation';
import type { BookingEvent } from './changes';
import {
	dropStartState,
	isOwnPollState,
	readPollState,
	readStartState,
	writePollState,
	writeStartState,
} from './pollState';
import { PAGE_SIZE, PollBudgetSpent, scanChanges } from './scan';

interface Owner {
	workflowId: string;
	nodeId: string;
}

/** A stored page cursor the service no longer takes: it answers 400 (validation_failed on `cursor`). */
function isRefusedCursor(error: unknown): boolean {
	return (error as { httpCode?: unknown } | null)?.httpCode === '400';
}

/**
 * When this poll must be done: n8n 2.41 gives each poll a budget (its durable scheduler abandons a poll past
 * N8N_SCHEDULER_POLL_TIMEOUT, and what it read is lost). n8n 1.x has none.
 */
function pollDeadline(context: IPollFunctions): number | undefined {
	const budget = (context as { getPollBudgetMs?: () => number }).getPollBudgetMs?.();
	return typeof budget === 'number' && budget > 0 ? Date.now() + budget : undefined;
}

export async function pollChanges(
	context: IPollFunctions,
	owner: Owner,
	startFrom: unknown,
): Promise<Array<BookingEvent<Booking>>> {
	const deadline = pollDeadline(context);
	const nodeData = context.getWorkflowStaticData('node');
	const workflowData = context.getWorkflowStaticData('global');
	let state = readPollState(nodeData, owner);
	if (state !== undefined) dropStartState(workflowData, owner);
	// No position of its own yet: the one taken at activation (durable scheduler), or a new one from now. A position
	// of its own that cannot be read (edited by hand) starts from now, never from an old activation.
	else if (!isOwnPollState(nodeData, owner)) state = readStartState(workflowData, owner);
	if (state === undefined) {
		state = await startingState(context, startFrom, deadline);
		writeStartState(workflowData, owner, state);
		if (startFrom === undefined) {
			// Nothing to report yet: the trigger starts watching from here.
			writePollState(nodeData, owner, state);
			return [];
		}
	}

	// A poll that fails before any progress throws and moves nothing: the next one asks from the same position.
	let slowestMs = 0;
	const readPage = async (updatedSince: string | null, cursor: string | undefined) => {
		// No time for another page: stop here and keep what was read (a page takes about as long as the slowest so far).
		if (deadline !== undefined && deadline - Date.now() < Math.max(1_000, slowestMs)) throw new PollBudgetSpent();
		const started = Date.now();
		const page = (await fetchListPage.call(context, {
			path: '/bookings',
			qs: { sort: '-updatedAt', ...(updatedSince === null ? {} : { updatedSince }) },
			limit: PAGE_SIZE,
			cursor,
			scope: 'bookings:read',
			deadline,
		})) as Page<Booking>;
		slowestMs = Math.max(slowestMs, Date.now() - started);
		return page;
	};
	const result = await scanChanges(state, readPage, isRefusedCursor);
	if (result.failure?.afterProgress === false) {
		if (!(result.failure.error instanceof PollBudgetSpent)) throw result.failure.error;
		throw new NodeOperationError(context.getNode(), 'The Booking Service answered too slowly for one poll', {
			description:
				"Nothing was lost: the next poll asks again from the same position. If it persists, raise n8n's poll timeout (N8N_SCHEDULER_POLL_TIMEOUT).",
		});
	}
	writePollState(nodeData, owner, result.state);
	if (result.failure !== undefined && !(result.failure.error instanceof PollBudgetSpent)) {
		context.logger.warn('Booking Service Polling Trigger stopped part-way; the next poll continues', {
			error: (result.failure.error as Error).message,
			workflowId: owner.workflowId,
		});
	}
	return result.events;
}
