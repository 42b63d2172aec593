import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

const shared = {
	// Each file in its own worker: module-level state (the trigger's in-process dedupe store, n8n-core's logger
	// and DI container) must not leak between files. Stated explicitly, which also silences vitest's hint.
	isolate: true,
	testTimeout: 30_000,
	hookTimeout: 30_000,
};

export default defineConfig({
	root: fileURLToPath(new URL('..', import.meta.url)),
	resolve: {
		// n8n-core requires n8n-workflow's CommonJS build; vitest would otherwise load the ESM build for our
		// sources, and the two copies' classes (NodeApiError, …) would fail each other's instanceof checks.
		alias: { 'n8n-workflow': require.resolve('n8n-workflow') },
	},
	test: {
		// Both cores: vitest's default on 2 cores is one worker, and most files here are CPU-bound engine runs or wait
		// on real time (Retry-After), so a second worker roughly halves the suite's wall time in CI.
		maxWorkers: 2,
		projects: [
			{
				extends: true,
				test: {
					...shared,
					name: 'all',
					include: ['test/**/*.test.ts'],
					exclude: ['test/e2e/**', 'test/e2e-queue/**', 'test/model/**', 'node_modules/**'],
				},
			},
			// The triggers' model-based tests: a few fixed-seed histories here, thousands in `npm run model`
			// (test/model/cli.ts sets BOOKING_MODEL_RUNS, and a long run has no time limit).
			{
				extends: true,
				test: {
					...shared,
					name: 'model',
					include: ['test/model/**/*.test.ts'],
					testTimeout: process.env.BOOKING_MODEL_RUNS ? 0 : 120_000,
				},
			},
			// The polling trigger's engine suites once more on n8n's durable poll scheduler (test/harness/poller.ts).
			{
				extends: true,
				test: {
					...shared,
					name: 'polling, durable scheduler',
					include: ['test/engine/polling-{trigger,guarantees,adversarial}.test.ts'],
					env: { BOOKING_POLL_SCHEDULER: 'durable' },
				},
			},
		],
	},
});
