// `npm run test:e2e` (after `npm run build`): the end-to-end suite against one real n8n process that the global
// setup starts for the whole run (and installs into .cache/n8n first, if needed).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
	root: fileURLToPath(new URL('../..', import.meta.url)),
	test: {
		include: ['test/e2e/**/*.test.ts'],
		globalSetup: ['test/e2e/global-setup.ts'],
		// One n8n serves every file; running files one at a time keeps its load, and so the timings, predictable on
		// 2 cores, and no file sees another's workflows or executions in flight.
		fileParallelism: false,
		// A test drives workflows through a real n8n: seconds each, more for trigger cycles.
		testTimeout: 120_000,
		hookTimeout: 120_000,
	},
});
