/**
 * Webhook targets (contract, Events, delivery rule 4): https only, and every address the host
 * resolves to must be public. The same check runs when a subscription is made and again before
 * every delivery, and the delivery then connects only to the addresses approved by that check (see
 * deliveries.ts), so a DNS answer that changes between check and connect cannot redirect it to a
 * private network.
 *
 * `allowInsecureWebhookTargets` (local use only) lifts both rules: http is accepted and any address
 * is.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface ApprovedTarget {
	url: URL;
	addresses: Array<{ address: string; family: 4 | 6 }>;
}

/**
 * Why a target is refused, worded for the validation_failed detail on `url` and the delivery log.
 */
export class TargetRefused extends Error {}

/**
 * Ranges that are not publicly routable: IANA special-purpose registries (RFC 6890 and updates),
 * plus multicast and the reserved blocks. An address inside any of them is refused.
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
	['0.0.0.0', 8], // "this network"
	['10.0.0.0', 8], // private
	['100.64.0.0', 10], // carrier-grade NAT
	['127.0.0.0', 8], // loopback
	['169.254.0.0', 16], // link-local (and cloud metadata)
	['172.16.0.0', 12], // private
	['192.0.0.0', 24], // IETF protocol assignments
	['192.0.2.0', 24], // documentation
	['192.31.196.0', 24], // AS112
	['192.52.193.0', 24], // AMT
	['192.88.99.0', 24], // 6to4 relay anycast
	['192.168.0.0', 16], // private
	['192.175.48.0', 24], // AS112
	['198.18.0.0', 15], // benchmarking
	['198.51.100.0', 24], // documentation
	['203.0.113.0', 24], // documentation
	['224.0.0.0', 4], // multicast
	['240.0.0.0', 4], // reserved, and broadcast
] as const) {
	NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
	['::', 128], // unspecified
	['::1', 128], // loopback
	['64:ff9b:1::', 48], // local-use NAT64
	['100::', 64], // discard-only
	['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, …)
	['2001:db8::', 32], // documentation
	['2002::', 16], // 6to4: embeds an IPv4 address the check cannot vouch for
	['3fff::', 20], // documentation
	['5f00::', 16], // segment routing
	['fc00::', 7], // unique local
	['fe80::', 10], // link-local
	['fec0::', 10], // site-local (deprecated)
	['ff00::', 8], // multicast
] as const) {
	NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * Whether an IP address is publicly routable. IPv4-mapped and NAT64 IPv6 forms are judged by their
 * IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
	const family = isIP(address);
	if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
	if (family !== 6) return false;
	const embedded = embeddedIpv4(address);
	if (embedded !== undefined) return isPublicAddress(embedded);
	return !NON_PUBLIC.check(address, 'ipv6');
}

/**
 * The IPv4 address inside `::ffff:a.b.c.d` (mapped) or `64:ff9b::a.b.c.d` (well-known NAT64
 * prefix).
 */
function embeddedIpv4(address: string): string | undefined {
	const words = expandIpv6(address);
	const mapped = words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff;
	const nat64 =
		words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((word) => word === 0);
	if (!mapped && !nat64) return undefined;
	return [words[6] >> 8, words[6] & 0xff, words[7] >> 8, words[7] & 0xff].join('.');
}

function expandIpv6(address: string): number[] {
	let text = address.split('%')[0].toLowerCase();
	const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
	if (dotted) {
		const [a, b, c, d] = dotted[1].split('.').map(Number);
		text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
	}
	const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
	const headWords = head === '' ? [] : head.split(':');
	const tailWords = tail === undefined || tail === '' ? [] : tail.split(':');
	const zeros =
		tail === undefined ? [] : new Array<string>(8 - headWords.length - tailWords.length).fill('0');
	return [...headWords, ...zeros, ...tailWords].map((word) => Number.parseInt(word, 16));
}

/** What is wrong with a target URL before any resolution (syntax and scheme), or undefined. */
export function targetUrlProblem(rawUrl: string, allowInsecure: boolean): string | undefined {
	let url: URL;
	try {
		url = new URL(rawUrl);
	} catch {
		return 'must be an absolute URI';
	}
	if (url.protocol === 'https:' || (allowInsecure && url.protocol === 'http:')) return undefined;
	return 'must use https';
}

/**
 * Checks a target URL and resolves its host. Throws TargetRefused with the reason when the scheme
 * or any resolved address is not allowed, or when the host does not resolve.
 */
export async function approveTarget(
	rawUrl: string,
	allowInsecure: boolean,
): Promise<ApprovedTarget> {
	const problem = targetUrlProblem(rawUrl, allowInsecure);
	if (problem !== undefined) throw new TargetRefused(problem);
	const url = new URL(rawUrl);
	const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
	const literal = isIP(host);
	let addresses: ApprovedTarget['addresses'];
	if (literal !== 0) {
		addresses = [{ address: host, family: literal as 4 | 6 }];
	} else {
		try {
			const found = await lookup(host, { all: true, verbatim: true });
			addresses = found.map(({ address, family }) => ({ address, family: family as 4 | 6 }));
		} catch {
			throw new TargetRefused('must resolve to an address');
		}
		if (addresses.length === 0) throw new TargetRefused('must resolve to an address');
	}
	if (!allowInsecure && !addresses.every(({ address }) => isPublicAddress(address))) {
		throw new TargetRefused('must resolve to a public address');
	}
	return { url, addresses };
}
