// `npm run test:queue` (after `npm run build`): the package in n8n's queue mode — Postgres, Redis, a main process,
// a worker and two webhook processes behind a round-robin proxy (test/n8n/queue.ts), started by the test file itself
// because it restarts a webhook process. Installs n8n (.cache/n8n) and Debian's postgresql and redis-server on first use.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	root: fileURLToPath(new URL('../..', import.meta.url)),
	test: {
		include: ['test/e2e-queue/**/*.test.ts'],
		fileParallelism: false,
		testTimeout: 180_000,
		// Starting the topology (a cold n8n install included) happens in beforeAll.
		hookTimeout: 20 * 60_000,
	},
});
