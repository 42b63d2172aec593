// The install users really do: Settings → Community Nodes, through the panel's own REST routes, in an unmodified n8n
// with no package installed beforehand. The packed package is published to a local registry (verdaccio, no uplinks)
// and n8n reaches it under npm's own name, https://registry.npmjs.org (another registry is a licensed feature of
// n8n), through a loopback proxy set in n8n's environment only (test/n8n/registry-proxy.ts): nothing leaves the
// machine and nothing outside the test changes. Install, a workflow run, an update to a newer version, uninstall.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { N8N_VERSION, packPackage, REPO_ROOT } from '../n8n/install.ts';
import { startN8n, type N8nInstance } from '../n8n/instance.ts';
import { startLocalRegistry, type LocalRegistry } from '../n8n/local-registry.ts';
import {
	proxyEnvironment,
	proxyNpmrc,
	startRegistryProxy,
	type RegistryProxy,
} from '../n8n/registry-proxy.ts';
import { startSimulator, type Simulator } from '../simulator/index.ts';
import { ACTION_NODE, CREDENTIAL_TYPE, PACKAGE, TRIGGER_NODE } from './n8n.ts';
import { service } from './service.ts';

const POLLING_TRIGGER_NODE = `${PACKAGE}.bookingServicePollingTrigger`;
/** Put in front of the action node's description in the newer version, to tell which version n8n loaded. */
const NEWER_MARK = '[newer build] ';

interface InstalledPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: Array<{ type: string }>;
	/** The newer version the panel offers, if any. */
	updateAvailable?: string;
}

let folder: string;
let registry: LocalRegistry;
let proxy: RegistryProxy;
let simulator: Simulator;
let n8n: N8nInstance;
let tarballs: { current: string; newer: string; version: string; newerVersion: string };

/** The packed package as a newer patch version whose action node says so in its description. */
function newerBuildOf(tarball: string, destination: string): { file: string; version: string } {
	const unpacked = join(folder, 'newer');
	mkdirSync(unpacked);
	spawnSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
	const packageJsonFile = join(unpacked, 'package.json');
	const packageJson = JSON.parse(readFileSync(packageJsonFile, 'utf8'));
	const [major, minor, patch] = String(packageJson.version).split('.').map(Number);
	packageJson.version = `${major}.${minor}.${patch + 1}`;
	writeFileSync(packageJsonFile, JSON.stringify(packageJson, null, 2));
	const nodeFile = join(unpacked, 'dist', 'nodes', 'BookingService', 'BookingService.node.js');
	const source = readFileSync(nodeFile, 'utf8');
	const marked = source.replace("description: 'Read and change bookings", `description: '${NEWER_MARK}Read and change bookings`);
	if (marked === source) throw new Error(`the action node's description was not found in ${nodeFile}`);
	writeFileSync(nodeFile, marked);
	return packPackage(unpacked, destination);
}

const nodesFolder = () => join(n8n.userFolder, '.n8n', 'nodes');

/** What the Community Nodes panel lists. */
const listed = async () => await n8n.rest<InstalledPackage[]>('GET', '/community-packages');

/**
 * n8n's installer is the same code on 2.41.1 and 1.123.81 (and 2.16.1 between them); the test runs on those two to
 * keep the e2e runs' time down (it starts an n8n of its own: about a minute).
 */
const PANEL_TESTED_ON = ['2.41.1', '1.123.81'];

const TITLE = `Settings → Community Nodes in n8n ${N8N_VERSION}, from a local registry under npm's name`;

describe.runIf(PANEL_TESTED_ON.includes(N8N_VERSION))(TITLE, () => {
	beforeAll(async () => {
		folder = mkdtempSync(join(tmpdir(), 'community-install-'));
		const current = packPackage(REPO_ROOT, folder);
		const newer = newerBuildOf(current.file, folder);
		tarballs = { current: current.file, newer: newer.file, version: current.version, newerVersion: newer.version };
		const logs = join(REPO_ROOT, '.cache', 'e2e');
		registry = await startLocalRegistry({ logFile: join(logs, `community-install-${N8N_VERSION}-verdaccio.log`) });
		registry.publish(tarballs.current);
		proxy = await startRegistryProxy(registry.port);
		simulator = await startSimulator({ allowInsecureWebhookTargets: true });
		const userFolder = join(folder, 'n8n');
		const npmCache = join(folder, 'npm-cache');
		mkdirSync(join(userFolder, '.n8n', 'nodes'), { recursive: true });
		writeFileSync(join(userFolder, '.n8n', 'nodes', '.npmrc'), proxyNpmrc(proxy, npmCache));
		n8n = await startN8n({
			userFolder,
			logFile: join(logs, `community-install-${N8N_VERSION}.log`),
			env: proxyEnvironment(proxy, npmCache),
		});
	}, 240_000);

	afterAll(async () => {
		await n8n?.stop();
		await simulator?.close();
		await proxy?.stop();
		await registry?.stop();
		if (folder) rmSync(folder, { recursive: true, force: true });
	});

	it('installs the package: its three nodes and the credential load, and nothing else lands beside it', async () => {
		expect(await listed()).toEqual([]);

		const installed = await n8n.rest<InstalledPackage>('POST', '/community-packages', { name: PACKAGE });

		expect(installed.packageName).toBe(PACKAGE);
		expect(installed.installedVersion).toBe(tarballs.version);
		expect(installed.installedNodes.map((node) => node.type).sort()).toEqual(
			[ACTION_NODE, POLLING_TRIGGER_NODE, TRIGGER_NODE].sort(),
		);
		const { nodes, credentials } = await n8n.listNodeTypes();
		expect(nodes).toEqual(expect.arrayContaining([ACTION_NODE, TRIGGER_NODE, POLLING_TRIGGER_NODE]));
		expect(credentials).toContain(CREDENTIAL_TYPE);
		// Only this package: no n8n-workflow (a peer, which n8n provides), no tree of its dependencies.
		expect(readdirSync(join(nodesFolder(), 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([PACKAGE]);
		expect(existsSync(join(nodesFolder(), 'node_modules', PACKAGE, 'node_modules'))).toBe(false);
		// It came from the local registry, through the proxy: n8n's own check that the version exists, then npm's fetch.
		expect(proxy.forwarded).toContain(`GET /${PACKAGE}/latest`);
		expect(proxy.forwarded).toContainEqual(expect.stringMatching(new RegExp(`/${PACKAGE}-${tarballs.version}\\.tgz$`)));
	});

	it('runs a workflow with the installed action node against the service', async () => {
		const credential = await n8n.createCredential({
			name: 'Booking Service (community install)',
			type: CREDENTIAL_TYPE,
			data: { apiKey: simulator.apiKeys.readWrite, baseUrl: simulator.baseUrl },
		});
		const node = {
			name: 'Booking Service',
			type: ACTION_NODE,
			typeVersion: 1,
			parameters: { resource: 'account', operation: 'get' },
			credentials: { [CREDENTIAL_TYPE]: credential },
		};

		expect(await n8n.runWorkflowViaWebhook([node], {})).toEqual([await service(simulator, 'GET', '/me')]);
	});

	it('updates to a newer version published meanwhile, and the newer one is what n8n loads', async () => {
		registry.publish(tarballs.newer);
		// The panel offers the update: n8n asks npm (`npm outdated` in its nodes folder) for newer versions.
		expect((await listed()).map((entry) => [entry.packageName, entry.updateAvailable])).toEqual([
			[PACKAGE, tarballs.newerVersion],
		]);

		const updated = await n8n.rest<InstalledPackage>('PATCH', '/community-packages', { name: PACKAGE });

		expect(updated.installedVersion).toBe(tarballs.newerVersion);
		expect((await listed()).map((entry) => [entry.packageName, entry.installedVersion])).toEqual([
			[PACKAGE, tarballs.newerVersion],
		]);
		const onDisk = JSON.parse(readFileSync(join(nodesFolder(), 'node_modules', PACKAGE, 'package.json'), 'utf8'));
		expect(onDisk.version).toBe(tarballs.newerVersion);
		const types = (await (
			await fetch(`${n8n.baseUrl}/types/nodes.json`, { headers: { cookie: n8n.cookie } })
		).json()) as Array<{ name: string; description: string }>;
		expect(types.find((type) => type.name === ACTION_NODE)?.description).toMatch(new RegExp(`^\\${NEWER_MARK}`));
	});

	it('uninstalls the package: its nodes are gone and nothing of it is left in the nodes folder', async () => {
		await n8n.rest('DELETE', `/community-packages?name=${PACKAGE}`);

		expect(await listed()).toEqual([]);
		const { nodes, credentials } = await n8n.listNodeTypes();
		expect(nodes.filter((name) => name.startsWith(`${PACKAGE}.`))).toEqual([]);
		expect(credentials).not.toContain(CREDENTIAL_TYPE);
		expect(readdirSync(join(nodesFolder(), 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([]);
	});
});
