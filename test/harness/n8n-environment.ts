/**
 * The process-wide setup n8n-core expects, for a test process. Import this module before n8n-core (engine.ts and
 * trigger.ts do):
 *
 * - n8n-core writes its instance settings under N8N_USER_FOLDER when it is first imported, so every test process gets
 *   a throwaway folder instead of the user's ~/.n8n.
 * - n8n's own logging goes to `n8nLog` in memory instead of stdout. When a node fails, n8n-core's ErrorReporter logs
 *   the error through n8n's Logger, which prints it; the test that provoked the failure asserts on it already, so on
 *   the console it is only noise. A test that cares what n8n logged reads `n8nLog.entries`.
 */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { LoggerProxy } from 'n8n-workflow';
import type { Logger, LogMetadata } from 'n8n-workflow';

process.env.N8N_USER_FOLDER ??= mkdtempSync(path.join(tmpdir(), 'booking-service-n8n-'));
// Quiet, deterministic engine: no telemetry, no version checks, no diagnostics from a test process.
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_VERSION_NOTIFICATIONS_ENABLED ??= 'false';

export interface N8nLogEntry {
	level: keyof Logger;
	message: string;
	metadata?: LogMetadata;
}

/** The newest entries are kept; a long test file cannot grow the record without bound. */
const MAX_KEPT_ENTRIES = 1000;

/** A logger with n8n's Logger interface that records instead of printing. */
class MemoryLogger implements Logger {
	readonly entries: N8nLogEntry[] = [];

	error = this.#recorder('error');

	warn = this.#recorder('warn');

	info = this.#recorder('info');

	debug = this.#recorder('debug');

	/** n8n-core asks its Logger for scoped children; here they all record into the same place. */
	scoped(): this {
		return this;
	}

	clear(): void {
		this.entries.length = 0;
	}

	#recorder(level: keyof Logger) {
		return (message: string, metadata?: LogMetadata) => {
			this.entries.push({ level, message, metadata });
			if (this.entries.length > MAX_KEPT_ENTRIES) this.entries.shift();
		};
	}
}

export const n8nLog = new MemoryLogger();

LoggerProxy.init(n8nLog);

/*
 * n8n-core does not log through LoggerProxy alone: its ErrorReporter and the node contexts take the Logger service
 * from its dependency-injection container, and that Logger, once created, prints to the console and points
 * LoggerProxy at itself. Registering the memory logger as that service first means it is never created. The container
 * must be n8n-core's own copy of @n8n/di (the package tree holds another version at the top level), hence resolving
 * from n8n-core's location.
 */
const requireFromHere = createRequire(import.meta.url);
const requireFromCore = createRequire(requireFromHere.resolve('n8n-core'));
const { Container } = requireFromCore('@n8n/di') as {
	Container: { set(type: unknown, instance: unknown): void };
};
const { Logger: LoggerService } = requireFromCore('@n8n/backend-common') as { Logger: unknown };
Container.set(LoggerService, n8nLog);
