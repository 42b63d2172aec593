// n8n's in-memory poller starts a poll on every tick without waiting for the previous one, on the same static data: one
// poll per trigger at a time. In-process only: that poller runs a workflow's polls on one main (the leader). The
// durable scheduler runs a trigger's polls one after another unless a poll outlasts the gap between two Poll Times
// (they may then run on two mains); the poll's budget keeps it shorter than n8n's poll timeout.
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
