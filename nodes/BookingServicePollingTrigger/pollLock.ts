// n8n starts a poll on every tick without waiting for the previous one, on the same static data: one poll per trigger
// at a time. In-process only: n8n runs a workflow's polls on one main (the leader), so this covers queue mode and
// multi-main except while leadership moves during a poll.
const polling = new Set<string>();

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
