/**
 * n8n starts a poll on every tick of the schedule without waiting for the previous one, on the same static data: a
 * poll that outlives the interval (a slow service, a Retry-After, a backlog) would run beside the next and both would
 * report the same changes. One poll per trigger at a time in this process; a tick that finds its trigger still
 * polling does nothing, and the running poll's progress is what the next tick continues from.
 *
 * In-process only: in queue mode and multi-main setups n8n runs a workflow's polls on one main process (the leader),
 * so this covers them, except for the moment leadership moves while a poll is still running on the old leader.
 */
const polling = new Set<string>();

/** Runs the poll unless one of the same trigger is running; undefined when skipped. */
export async function pollExclusively<T>(trigger: string, poll: () => Promise<T>): Promise<T | undefined> {
	if (polling.has(trigger)) return undefined;
	polling.add(trigger);
	try {
		return await poll();
	} finally {
		polling.delete(trigger);
	}
}

/** Polls running now (a test shows the set empties on every path). */
export function pollsRunning(): number {
	return polling.size;
}
