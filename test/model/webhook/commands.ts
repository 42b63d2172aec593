// The commands of the webhook trigger's model: what the service's users, the service, n8n, the network and an attacker
// do, in any order. Each counts a coverage label as it runs; the judging is all in reference.ts.
import fc from 'fast-check';
import type { Coverage } from '../coverage.ts';
import type { WebhookWorld } from './world.ts';
import { FLOOD_SIZES, sendFlood } from './floods.ts';
import type { Routing } from './front.ts';
import { forgery, FORGERY_KINDS } from './forgeries.ts';

export interface Model {
	published: boolean;
}

export interface Real {
	world: WebhookWorld;
	coverage: Coverage;
}

type Run = (world: WebhookWorld, coverage: Coverage) => Promise<void>;

class Step implements fc.AsyncCommand<Model, Real> {
	readonly name: string;
	readonly run_: Run;
	readonly when: (model: Model) => boolean;
	readonly after: (model: Model) => void;

	constructor(name: string, run: Run, when: (model: Model) => boolean = () => true, after: (model: Model) => void = () => {}) {
		this.name = name;
		this.run_ = run;
		this.when = when;
		this.after = after;
	}

	check(model: Readonly<Model>): boolean {
		return this.when(model);
	}

	async run(model: Model, real: Real): Promise<void> {
		real.coverage.count(`command: ${this.name.split('(')[0]}`);
		real.world.advance(1_000); // a second between steps: budgets refill, signatures age
		real.world.noteSubscriptions();
		await this.run_(real.world, real.coverage);
		real.world.noteSubscriptions();
		this.after(model);
	}

	toString(): string {
		return this.name;
	}
}

/** The API requests the trigger makes, and how each can fail. */
export const FAULT_ROUTES = [
	['GET', '/me'],
	['POST', '/webhooks'],
	['GET', '/webhooks/{id}'],
	['DELETE', '/webhooks/{id}'],
	['GET', '/bookings/{id}'],
] as const;
export const FAULT_KINDS = ['500', '429', 'dropped', 'answer lost'] as const;

const faultSpec = (kind: (typeof FAULT_KINDS)[number]) =>
	kind === '500'
		? { kind: 'status', status: 500 }
		: kind === '429'
			? { kind: 'rate_limit', retryAfterSeconds: 1 }
			: kind === 'dropped'
				? { kind: 'drop' }
				: { kind: 'status', status: 500, phase: 'after' };

/** Where in a history a key rotation or another state change happened: published or not, deliveries pending or not. */
function point(world: WebhookWorld): string {
	const pending = world.sim.control.deliveries().some((entry) => entry.outcome === 'failed');
	return `${world.published ? 'published' : 'unpublished'}, ${pending ? 'retries pending' : 'nothing pending'}`;
}

async function onConfirmed(world: WebhookWorld, pick: number, act: (id: string) => Promise<void> | void): Promise<void> {
	const confirmed = world.sim.control.bookings().filter((booking) => world.bookings.includes(booking.id) && booking.status === 'confirmed');
	if (confirmed.length > 0) await act(confirmed[pick % confirmed.length].id);
}

export const commandArbitraries: Array<fc.Arbitrary<fc.AsyncCommand<Model, Real>>> = [
	fc.constant(new Step('book', async (world) => void (await world.book()))),
	fc
		.nat(9)
		.map(
			(pick) =>
				new Step(`cancel(${pick})`, (world) => onConfirmed(world, pick, (id) => void world.sim.control.cancel(id, { by: 'host', reason: null }))),
		),
	fc.nat(9).map((pick) => new Step(`noShow(${pick})`, (world) => onConfirmed(world, pick, (id) => void world.sim.control.noShow(id)))),
	fc.nat(9).map(
		(pick) =>
			new Step(`reschedule(${pick})`, (world) =>
				onConfirmed(world, pick, async (id) => {
					const booked = new Set(world.sim.control.bookings().map((booking) => booking.start));
					const start = (await world.freeStarts()).find((candidate) => !booked.has(candidate));
					if (start !== undefined) world.sim.control.reschedule(id, { start, by: 'booker' });
				}),
			),
	),
	fc.constant(new Step('deliver', async (world) => void (await world.deliver()))),
	fc.record({ duplicates: fc.integer({ min: 0, max: 2 }), shuffle: fc.boolean() }).map(
		(mode) =>
			new Step(`deliveryMode(${JSON.stringify(mode)})`, async (world, coverage) => {
				if (mode.duplicates > 0) coverage.count('delivery: duplicates');
				if (mode.shuffle) coverage.count('delivery: reordered');
				world.sim.control.setDeliveryMode(mode);
			}),
	),
	fc.constantFrom(1, 5, 30, 120, 360, 1440).map(
		(minutes) =>
			new Step(`advance(${minutes} min)`, async (world, coverage) => {
				coverage.count(`clock: +${minutes} min`);
				world.advance(minutes * 60_000);
				await world.deliver();
			}),
	),
	fc.tuple(fc.constantFrom(...FAULT_ROUTES), fc.constantFrom(...FAULT_KINDS), fc.integer({ min: 1, max: 2 })).map(
		([[method, path], kind, count]) =>
			new Step(`fault(${kind} on ${method} ${path} ×${count})`, async (world, coverage) => {
				coverage.count(`fault: ${kind} on ${method} ${path}`);
				world.sim.control.addFault({ method, path, count, ...faultSpec(kind) } as never);
			}),
	),
	fc.integer({ min: 1, max: 3 }).map(
		(count) =>
			new Step(`credentialUnreadable(×${count})`, async (world, coverage) => {
				coverage.count(`fault: credential unreadable (${point(world)})`);
				world.credentialFailures = count;
			}),
	),
	fc.constant(
		new Step('loseNextAnswer', async (world, coverage) => {
			coverage.count('fault: answer to a delivery lost');
			world.answersToLose += 1;
		}),
	),
	fc.tuple(fc.constantFrom(...FORGERY_KINDS), fc.nat(99)).map(
		([kind, pick]) =>
			new Step(`forge(${kind}, ${pick})`, async (world, coverage) => {
				const made = forgery(world, kind, pick);
				if (made === undefined) return;
				coverage.count(`forgery: ${kind}`);
				await world.forge(kind, made.body, made.headers);
			}),
	),
	fc.constant(
		new Step('rotateKey', async (world, coverage) => {
			coverage.count(`rotation: ${point(world)}`);
			world.rotateKey();
		}),
	),
	fc.constant(
		new Step('switchAccount', async (world, coverage) => {
			coverage.count(`account switch: ${point(world)}`);
			world.switchAccount();
		}),
	),
	fc.constant(
		new Step('secondProcess', async (world, coverage) => {
			coverage.count(`second process: ${world.live.length > 1 ? 'restarted' : 'started'} (${point(world)})`);
			await world.startWebhookProcess();
		}),
	),
	fc.constantFrom<Routing>('alternate', 'main', 'second').map(
		(routing) =>
			new Step(`route(${routing})`, async (world, coverage) => {
				if (world.live.length > 1) coverage.count(`routing: ${routing}, two processes`);
				world.front.routing = routing;
			}),
	),
	fc.record({ count: fc.constantFrom(...FLOOD_SIZES), several: fc.boolean(), sustained: fc.constantFrom(false, false, false, true) }).map(
		(flood) =>
			new Step(`flood(${JSON.stringify(flood)})`, async (world, coverage) => {
				const where = `${flood.count} at ${flood.several ? 'several triggers' : 'one trigger'}`;
				coverage.count(`flood: ${where}${flood.sustained ? ', sustained' : ''} (${world.rotated ? 'key rotated' : 'key as published'})`);
				await sendFlood(world, flood);
				await world.deliver(); // what was due arrives right after the burst
				if (flood.sustained) world.flood = flood; // and the flood goes on before every later delivery
			}),
	),
	fc.constant(
		new Step(
			'raceReactivation',
			async (world, coverage) => {
				world.race = (role, outcome) => coverage.count(`race: re-activation (${outcome}) during a request to ${role}`);
			},
			(model) => model.published,
		),
	),
	fc.constant(new Step('floodStops', async (world) => void (world.flood = undefined))),
	fc.constant(
		new Step('restart', async (world, coverage) => {
			coverage.count(`restart: ${point(world)}`);
			await world.startProcess();
			if (world.published) coverage.count(`activation (init): ${await world.activate('init')}`);
		}),
	),
	fc.constant(
		new Step(
			'reactivate',
			async (world, coverage) => coverage.count(`activation (update): ${await world.activate('update')}`),
			(model) => model.published,
		),
	),
	fc.constant(
		new Step(
			'publish',
			async (world, coverage) => {
				world.markPublished();
				coverage.count(`activation (activate): ${await world.activate('activate')}`);
			},
			(model) => !model.published,
			(model) => void (model.published = true),
		),
	),
	fc.constant(
		new Step(
			'unpublish',
			async (world) => {
				await world.unpublish();
			},
			(model) => model.published,
			(model) => void (model.published = false),
		),
	),
	fc.constant(
		new Step('testListen', async (world, coverage) => {
			try {
				// A new listen ends the one before (the harness, unlike n8n's editor, would keep two registrations).
				await world.harness.stopListening();
				await world.harness.listenForTestEvent();
				coverage.count('test listen: started');
			} catch {
				coverage.count('test listen: failed');
			}
		}),
	),
	fc.constant(
		new Step('stopListening', async (world, coverage) => {
			try {
				await world.harness.stopListening();
			} catch {
				coverage.count('test listen: stop failed');
			}
		}),
	),
];
