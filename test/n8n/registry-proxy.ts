// A loopback proxy that makes "https://registry.npmjs.org" answer from a local registry, for one process only: n8n's
// Community Nodes install takes a registry other than npm's only with a licence, so a test of that install must make
// npm's own name answer locally. Nothing on the machine changes (no hosts file, no system CA): the process given
// `proxyEnvironment()` sends its https through this proxy and trusts a throwaway certificate made here.
//
// - CONNECT registry.npmjs.org:443 (npm, n8n's OutboundHttp): TLS is ended here with that certificate and each request
//   goes on to the local registry on 127.0.0.1.
// - An absolute-form request for https://registry.npmjs.org/… (how axios uses an http proxy): the same.
// - Anything else (api.n8n.io, any other host): refused with 403 and recorded, so nothing leaves the machine.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NPM_REGISTRY_HOST = 'registry.npmjs.org';
const LOOPBACK = '127.0.0.1';

export interface RegistryProxy {
	/** http://127.0.0.1:<port> */
	url: string;
	/** The throwaway certificate the proxied process must trust (PEM file). */
	caFile: string;
	/** `METHOD path` of every request passed on to the local registry. */
	forwarded: string[];
	/** Hosts (or URLs) refused. */
	refused: string[];
	stop(): Promise<void>;
}

/** A self-signed certificate for registry.npmjs.org, valid for a day, made with the openssl CLI. */
function throwawayCertificate(folder: string): { key: string; cert: string; certFile: string } {
	const keyFile = join(folder, 'key.pem');
	const certFile = join(folder, 'cert.pem');
	const made = spawnSync(
		'openssl',
		[
			'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
			'-subj', `/CN=${NPM_REGISTRY_HOST} (throwaway test certificate)`,
			'-addext', `subjectAltName=DNS:${NPM_REGISTRY_HOST}`,
			'-keyout', keyFile, '-out', certFile,
		],
		{ encoding: 'utf8', timeout: 30_000 },
	);
	if (made.status !== 0) throw new Error(`openssl could not make a test certificate: ${made.stderr || made.error}`);
	return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

/** Starts the proxy in front of the registry at `registryPort` on 127.0.0.1. */
export async function startRegistryProxy(registryPort: number): Promise<RegistryProxy> {
	const folder = mkdtempSync(join(tmpdir(), 'registry-proxy-'));
	const { key, cert, certFile } = throwawayCertificate(folder);
	const forwarded: string[] = [];
	const refused: string[] = [];

	const forward = (req: IncomingMessage, res: ServerResponse, path: string) => {
		forwarded.push(`${req.method} ${path}`);
		const upstream = request(
			{ host: LOOPBACK, port: registryPort, method: req.method, path, headers: { ...req.headers, host: NPM_REGISTRY_HOST } },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		upstream.on('error', () => res.destroy());
		req.pipe(upstream);
	};
	const refuse = (what: string, res: ServerResponse) => {
		refused.push(what);
		res.writeHead(403).end(`only ${NPM_REGISTRY_HOST} is answered here\n`);
	};

	// Requests arriving inside a CONNECT tunnel to registry.npmjs.org, after TLS is ended with the test certificate.
	const tlsEnd = createHttpsServer({ key, cert }, (req, res) => forward(req, res, req.url ?? '/'));
	const proxy = createServer((req, res) => {
		const target = URL.canParse(req.url ?? '') ? new URL(req.url ?? '') : undefined;
		if (target?.protocol === 'https:' && target.hostname === NPM_REGISTRY_HOST) {
			forward(req, res, `${target.pathname}${target.search}`);
		} else {
			refuse(req.url ?? '', res);
		}
	});
	proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
		socket.on('error', () => socket.destroy());
		if (req.url !== `${NPM_REGISTRY_HOST}:443`) {
			refused.push(req.url ?? '');
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head.length > 0) socket.unshift(head);
		tlsEnd.emit('connection', socket);
	});
	await new Promise<void>((listening) => proxy.listen(0, LOOPBACK, listening));
	const { port } = proxy.address() as AddressInfo;

	return {
		url: `http://${LOOPBACK}:${port}`,
		caFile: certFile,
		forwarded,
		refused,
		stop: async () => {
			proxy.closeAllConnections();
			tlsEnd.closeAllConnections();
			await new Promise((closed) => proxy.close(closed));
			rmSync(folder, { recursive: true, force: true });
		},
	};
}

/** npm's settings for going through the proxy; `cache` keeps npm away from the user's own cache. */
export function proxyNpmSettings(proxy: RegistryProxy, cache: string): Record<string, string> {
	return {
		'https-proxy': proxy.url,
		noproxy: `${LOOPBACK},localhost`,
		cafile: proxy.caFile,
		cache,
		'update-notifier': 'false',
	};
}

/**
 * The environment that sends a process's https (Node's own agents that honour the proxy variables, and the npm it
 * runs) through the proxy and makes it trust the test certificate; loopback stays direct.
 */
export function proxyEnvironment(proxy: RegistryProxy, npmCache: string): Record<string, string> {
	const direct = `${LOOPBACK},localhost`;
	const npm = Object.entries(proxyNpmSettings(proxy, npmCache)).map(([key, value]) => [
		`npm_config_${key.replaceAll('-', '_')}`,
		value,
	]);
	return {
		HTTPS_PROXY: proxy.url,
		https_proxy: proxy.url,
		NO_PROXY: direct,
		no_proxy: direct,
		NODE_EXTRA_CA_CERTS: proxy.caFile,
		...Object.fromEntries(npm),
	};
}

/**
 * The same settings as an .npmrc, for a folder npm runs in with an environment of its own: n8n 1.x runs
 * `npm outdated` (the panel's list) in its nodes folder with only PATH and NODE_PATH, so without this file that npm
 * would go to the real registry.
 */
export function proxyNpmrc(proxy: RegistryProxy, npmCache: string): string {
	return `${Object.entries(proxyNpmSettings(proxy, npmCache))
		.map(([key, value]) => `${key}=${value}`)
		.join('\n')}\n`;
}
