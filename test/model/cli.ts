/**
 * npm run model -- [--runs N] [--seed S] [--path P --replay-path R] [polling|webhook ...]
 *
 * A long run of the triggers' model-based tests: N histories per model and scheduler (default 5,000) from seed S
 * (default: the time), each model printing how often each kind of event, fault and clock step was generated. A
 * counterexample is printed with its seed and shrink path; replay it with --seed, --path and
 * --replay-path (its replayPath="…" comment: fc.commands needs it to take the same shrink steps).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
	options: { runs: { type: 'string', default: '5000' }, seed: { type: 'string' }, path: { type: 'string' }, 'replay-path': { type: 'string' } },
	allowPositionals: true,
});
const seed = values.seed ?? String(Date.now() % 2 ** 31);
const files = (positionals.length > 0 ? positionals : ['polling', 'webhook']).map((name) => `test/model/${name}`);

console.log(`model: ${values.runs} histories per model from seed ${seed}${values.path ? `, path ${values.path}` : ''}`);
const result = spawnSync(
	process.execPath,
	[
		// vitest's command-line entry (not among the package's exports, so found by path).
		fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url)),
		'run',
		'--config',
		'test/vitest.config.ts',
		'--project',
		'model',
		...files,
	],
	{
		cwd: fileURLToPath(new URL('../..', import.meta.url)),
		stdio: 'inherit',
		env: {
			...process.env,
			BOOKING_MODEL_RUNS: values.runs,
			BOOKING_MODEL_SEED: seed,
			...(values.path ? { BOOKING_MODEL_PATH: values.path } : {}),
			...(values['replay-path'] ? { BOOKING_MODEL_REPLAY_PATH: values['replay-path'] } : {}),
		},
	},
);
process.exit(result.status ?? 1);
