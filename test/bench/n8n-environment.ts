/**
 * The process environment n8n-core reads when it is first loaded, for a bench worker; imported before anything that
 * loads n8n-core (engine.ts imports it first). Unlike the test harness's, it leaves n8n's logger as n8n makes it:
 * a bench measures the engine as it runs, not a recording stand-in.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core writes its instance settings under N8N_USER_FOLDER: a throwaway folder, never ~/.n8n.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'booking-bench-n8n-'));
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_VERSION_NOTIFICATIONS_ENABLED ??= 'false';
// Otherwise n8n-core generates one and says so on stderr.
process.env.N8N_ENCRYPTION_KEY ??= 'booking-service-bench';
