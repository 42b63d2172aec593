/**
 * CPU time a running process has used so far (all its threads: n8n's main thread, and the threads isolated-vm runs
 * expression isolates on, which a `--cpu-prof` profile of the main thread does not show), read from Linux's
 * /proc/<pid>/stat. Sections 4 and 7 take it before and after a run to give n8n's CPU per delivery.
 */
import { readFileSync } from 'node:fs';

/** Linux reports utime and stime in clock ticks; 100 a second on every Linux this runs on (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds of `pid`, or undefined where /proc cannot tell (not Linux, process gone). */
export function processCpuMs(pid: number): number | undefined {
	let stat: string;
	try {
		stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	} catch {
		return undefined;
	}
	// The command name (field 2) is in parentheses and may hold spaces: count fields after its closing parenthesis.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	// utime and stime are fields 14 and 15 of the line, so 12th and 13th after the name.
	const ticks = Number(fields[11]) + Number(fields[12]);
	return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined;
}
