/**
 * n8n-core writes its instance settings under N8N_USER_FOLDER when it is first imported. Import this module before
 * n8n-core (engine.ts does) so every test process gets a throwaway folder instead of the user's ~/.n8n.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

process.env.N8N_USER_FOLDER ??= mkdtempSync(path.join(tmpdir(), 'booking-service-n8n-'));
// Quiet, deterministic engine: no telemetry, no version checks, no diagnostics from a test process.
process.env.N8N_DIAGNOSTICS_ENABLED ??= 'false';
process.env.N8N_VERSION_NOTIFICATIONS_ENABLED ??= 'false';
