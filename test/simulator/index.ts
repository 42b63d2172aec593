/**
 * The Booking Service simulator, in process. Tests start one per file (or per suite), talk HTTP to
 * `baseUrl` like any client would, and steer the world through `control` (or the same operations
 * over HTTP at `controlUrl`).
 *
 *   const sim = await startSimulator({ allowInsecureWebhookTargets: true });
 *   const headers = { Authorization: `Bearer ${sim.apiKeys.readWrite}` };
 *   await fetch(`${sim.baseUrl}/me`, { headers });
 *   sim.control.payment(bookingId, { outcome: 'succeeded' });
 *   await sim.close();
 */
import type { AddressInfo } from 'node:net';
import { SimulatorControl } from './control.ts';
import type { KeyChoice } from './model.ts';
import { createSimulatorServer } from './server.ts';
import { Simulation } from './simulation.ts';
import type { SimulatorOptions } from './simulation.ts';

export type { SimulatorOptions } from './simulation.ts';
export { ControlError, SimulatorControl } from './control.ts';
export type { WebhookView } from './control.ts';
export type { DeliveryLogEntry, DeliveryMode } from './deliveries.ts';
export type { EmailRecord } from './store.ts';
export type { FaultSpec, RateLimit, RequestLogEntry } from './traffic.ts';
export type * from './model.ts';

export interface Simulator {
	/** `http://127.0.0.1:<port>/v1` */
	baseUrl: string;
	/** `http://127.0.0.1:<port>/_control` */
	controlUrl: string;
	/** The seeded keys; they follow from the seed, so they survive `control.reset()`. */
	apiKeys: Record<KeyChoice, string>;
	/** In-process equivalents of the /_control endpoints. */
	control: SimulatorControl;
	close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
	const sim = new Simulation(options);
	const control = new SimulatorControl(sim);
	const server = createSimulatorServer(sim, control);
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	sim.origin = `http://127.0.0.1:${port}`;
	return {
		baseUrl: `${sim.origin}/v1`,
		controlUrl: `${sim.origin}/_control`,
		apiKeys: { ...sim.apiKeys },
		control,
		close: async () => {
			sim.deliveries.close();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await closed;
		},
	};
}
