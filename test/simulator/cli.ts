/**
 * `npm run simulator -- [--port <p>] [--seed <n>] [--bookings <n>] [--now <iso>]
 * [--allow-insecure-webhooks] [--no-rate-limit]`
 *
 * Serves the simulator on 127.0.0.1 and prints exactly one line of JSON on stdout once ready:
 *   {"baseUrl":"http://127.0.0.1:<p>/v1","apiKeys":{"readWrite":"…","readOnly":"…"}}
 * Other tools parse that line, so nothing else ever goes to stdout; notes go to stderr. Runs until
 * SIGINT or SIGTERM.
 */
import { parseArgs } from 'node:util';
import { startSimulator } from './index.ts';

function integerOption(
	name: string,
	text: string | undefined,
	min: number,
	max: number,
): number | undefined {
	if (text === undefined) return undefined;
	const value = Number(text);
	if (!Number.isInteger(value) || value < min || value > max) {
		console.error(`[simulator] --${name} must be an integer from ${min} to ${max}`);
		process.exit(2);
	}
	return value;
}

const { values } = parseArgs({
	options: {
		port: { type: 'string' },
		seed: { type: 'string' },
		bookings: { type: 'string' },
		now: { type: 'string' },
		'allow-insecure-webhooks': { type: 'boolean', default: false },
		'no-rate-limit': { type: 'boolean', default: false },
	},
	strict: true,
});

if (values.now !== undefined && Number.isNaN(Date.parse(values.now))) {
	console.error('[simulator] --now must be an ISO 8601 timestamp');
	process.exit(2);
}

const simulator = await startSimulator({
	port: integerOption('port', values.port, 0, 65535),
	seed: integerOption('seed', values.seed, 0, 2 ** 31 - 1),
	generatedBookings: integerOption('bookings', values.bookings, 0, 10_000),
	now: values.now,
	allowInsecureWebhookTargets: values['allow-insecure-webhooks'],
	rateLimit: values['no-rate-limit'] ? false : undefined,
});

process.stdout.write(
	`${JSON.stringify({ baseUrl: simulator.baseUrl, apiKeys: simulator.apiKeys })}\n`,
);
console.error(`[simulator] API at ${simulator.baseUrl}, control at ${simulator.controlUrl}`);

async function stop(signal: string): Promise<void> {
	console.error(`[simulator] ${signal}: stopping`);
	await simulator.close();
	process.exit(0);
}
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
