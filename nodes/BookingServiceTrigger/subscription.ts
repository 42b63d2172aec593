/**
 * The trigger's side of a webhook subscription: what it keeps in the node's static data, the event selection, and
 * the messages for a subscription the service refuses.
 *
 * Static data holds, per trigger node (n8n keeps a separate copy for a test run):
 *   subscription           StoredSubscription      the subscription this node made, naming the workflow and node
 *                                                  that own it and the account it lives in
 *   leftoverSubscriptions  LeftoverSubscription[]  subscriptions this node replaced but could not delete yet
 * (Earlier versions also kept `recentEventIds` there, written by webhook(); it is removed when the record is rewritten.)
 * Static data is plain text on the workflow row and travels with exports and copies of the workflow: hence
 * `sealedSecret` (secretBox.ts) and never the secret itself, and hence the owner in every record — a record another
 * workflow or node wrote (a copy) is never acted on, only forgotten.
 */
import type { IDataObject, IHookFunctions, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { ALL_EVENTS } from '../shared/booking';
import { isResourceId } from '../shared/resourceId';
import { serviceErrorDetailsOf } from '../shared/serviceErrors';
import type { ServiceErrorDetail } from '../shared/serviceErrors';

/** The contract's limits for POST /webhooks. */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 25;
const MAX_DESCRIPTION_LENGTH = 200;
/** One per possible subscription is plenty; beyond that the oldest are given up on (and logged). */
const MAX_LEFTOVERS = MAX_SUBSCRIPTIONS_PER_ACCOUNT;

/** The workflow and node a record belongs to. */
export interface Owner {
	workflowId: string;
	nodeId: string;
}

/** Where a subscription lives: the service at a Base URL, and the account there (from GET /me, when known). */
export interface AccountRef {
	baseUrl: string;
	accountId?: string;
}

export interface StoredSubscription extends Owner, AccountRef {
	id: string;
	webhookUrl: string;
	/** As sent to the service, normalised by `normaliseEventSelection`. */
	events: string[];
	sealedSecret: string;
}

/** A subscription this node replaced whose DELETE failed: retried on activation, its deliveries answered 410. */
export interface LeftoverSubscription extends Owner, AccountRef {
	id: string;
	/** Sealed under the API key of the time; deliveries signed with it prove the subscription is ours. */
	sealedSecret?: string;
}

/**
 * The selection as it is sent and compared: `*` alone when chosen (it already covers every kind), otherwise the
 * distinct kinds in a fixed order, so reordering the selection in the editor is not a change of subscription.
 */
export function normaliseEventSelection(selected: unknown): string[] {
	const values = Array.isArray(selected) ? selected.filter((value): value is string => typeof value === 'string') : [];
	if (values.includes(ALL_EVENTS)) return [ALL_EVENTS];
	return [...new Set(values)].sort();
}

function readOwnerAndAccount(record: Record<string, unknown>): (Owner & AccountRef) | undefined {
	const { workflowId, nodeId, baseUrl, accountId } = record;
	if (typeof workflowId !== 'string' || typeof nodeId !== 'string' || typeof baseUrl !== 'string') return undefined;
	return { workflowId, nodeId, baseUrl, ...(typeof accountId === 'string' ? { accountId } : {}) };
}

/**
 * The stored subscription, or undefined when there is none or it is not readable. A record without an owner was
 * written by version 0.1.0: it is returned with an empty owner, which no node matches, so it is never acted on.
 */
export function readStoredSubscription(nodeData: IDataObject): StoredSubscription | undefined {
	const stored = nodeData.subscription as Record<string, unknown> | undefined;
	if (typeof stored !== 'object' || stored === null) return undefined;
	const { id, webhookUrl, events, sealedSecret } = stored;
	if (!isResourceId(id) || typeof webhookUrl !== 'string' || typeof sealedSecret !== 'string') return undefined;
	if (!Array.isArray(events)) return undefined;
	const ownerAndAccount = readOwnerAndAccount(stored) ?? { workflowId: '', nodeId: '', baseUrl: '' };
	return { id, webhookUrl, events: normaliseEventSelection(events), sealedSecret, ...ownerAndAccount };
}

export function isOwnedBy(record: Owner, owner: Owner): boolean {
	return record.workflowId === owner.workflowId && record.nodeId === owner.nodeId;
}

export function storeSubscription(nodeData: IDataObject, subscription: StoredSubscription): void {
	nodeData.subscription = { ...subscription };
	// Earlier versions' record of event ids, written by webhook() (which now writes nothing): not read any more.
	delete nodeData.recentEventIds;
}

export function forgetSubscription(nodeData: IDataObject): void {
	delete nodeData.subscription;
	delete nodeData.recentEventIds;
}

export function sameSubscriptionTarget(stored: StoredSubscription, webhookUrl: string, events: string[]): boolean {
	return stored.webhookUrl === webhookUrl && stored.events.join(',') === events.join(',');
}

/** This node's leftovers; anything else found there (a copy's, or 0.1.0's bare ids) is not ours to delete. */
export function readLeftoverSubscriptions(nodeData: IDataObject, owner: Owner): LeftoverSubscription[] {
	const entries = Array.isArray(nodeData.leftoverSubscriptions) ? (nodeData.leftoverSubscriptions as unknown[]) : [];
	const leftovers: LeftoverSubscription[] = [];
	for (const entry of entries) {
		if (typeof entry !== 'object' || entry === null) continue;
		const record = entry as Record<string, unknown>;
		const ownerAndAccount = readOwnerAndAccount(record);
		if (!isResourceId(record.id) || ownerAndAccount === undefined || !isOwnedBy(ownerAndAccount, owner)) continue;
		const sealedSecret = typeof record.sealedSecret === 'string' ? { sealedSecret: record.sealedSecret } : {};
		leftovers.push({ id: record.id, ...ownerAndAccount, ...sealedSecret });
	}
	return leftovers;
}

/** Only the fields a leftover has, whatever record it was made from. */
function leftoverRecord({ id, workflowId, nodeId, baseUrl, accountId, sealedSecret }: LeftoverSubscription): IDataObject {
	return {
		id,
		workflowId,
		nodeId,
		baseUrl,
		...(accountId === undefined ? {} : { accountId }),
		...(sealedSecret === undefined ? {} : { sealedSecret }),
	};
}

/** Keeps at most MAX_LEFTOVERS, the newest; returns the ones given up on, for the log. */
export function storeLeftoverSubscriptions(
	nodeData: IDataObject,
	leftovers: LeftoverSubscription[],
): LeftoverSubscription[] {
	const unique = [...new Map(leftovers.map((leftover) => [leftover.id, leftover])).values()];
	const kept = unique.slice(-MAX_LEFTOVERS);
	delete nodeData.leftoverSubscriptionIds; // 0.1.0's format: bare ids of unknown owner, never acted on
	if (kept.length === 0) delete nodeData.leftoverSubscriptions;
	else nodeData.leftoverSubscriptions = kept.map(leftoverRecord);
	return unique.slice(0, unique.length - kept.length);
}

/**
 * What the service shows in its list of subscriptions, so a person can tell which workflow a subscription feeds and
 * when it was made — also one whose creation answer was lost and that no node knows about.
 */
export function subscriptionDescription(
	workflow: { id?: string; name?: string },
	node: INode,
	isTest: boolean,
	createdAt: Date,
): string {
	const name = workflow.name?.trim() || 'unnamed workflow';
	const suffix = ` – ${node.name}${isTest ? ' (test URL)' : ''} – workflow ${workflow.id ?? '?'}, ${createdAt.toISOString().slice(0, 16)}Z`;
	const prefix = 'n8n: ';
	const room = MAX_DESCRIPTION_LENGTH - prefix.length - suffix.length;
	const fitted = name.length <= room ? name : `${name.slice(0, Math.max(0, room - 1))}…`;
	return `${prefix}${fitted}${suffix}`.slice(0, MAX_DESCRIPTION_LENGTH);
}

/**
 * Why the service would refuse this webhook URL, judged locally, or undefined when it looks deliverable. Only used to
 * explain a refusal: the request is always sent, because a local simulator may accept such URLs.
 */
export function webhookUrlProblem(webhookUrl: string): string | undefined {
	let url: URL;
	try {
		url = new URL(webhookUrl);
	} catch {
		return 'it is not a valid URL';
	}
	if (url.protocol !== 'https:') return 'it uses http, and the service delivers only to https';
	const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
	if (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host.endsWith('.local') ||
		(!host.includes('.') && !host.includes(':'))
	) {
		return `its host "${host}" is only reachable on this machine or network`;
	}
	if (isPrivateAddressLiteral(host)) return `its address ${host} is private or reserved`;
	return undefined;
}

function isPrivateAddressLiteral(host: string): boolean {
	const ipv4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/.exec(host);
	if (ipv4) {
		const [a, b] = [Number(ipv4[1]), Number(ipv4[2])];
		return (
			a === 0 ||
			a === 10 ||
			a === 127 ||
			(a === 100 && b >= 64 && b <= 127) ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168) ||
			a >= 224
		);
	}
	// IPv6 literals: loopback, unspecified, unique local (fc00::/7), link-local (fe80::/10), IPv4-mapped.
	return host.includes(':') && /^(::1?$|f[cd]|fe[89ab]|::ffff:)/.test(host);
}

const URL_GUIDANCE = [
	'The Booking Service delivers only to https addresses on the public internet.',
	'Testing the trigger in the editor subscribes n8n\'s Test URL (…/webhook-test/…); an active workflow subscribes its Production URL (…/webhook/…). Both are built from n8n\'s WEBHOOK_URL setting.',
	'If n8n runs on your computer or on a private network, expose it through an https tunnel (for example cloudflared or ngrok), set the environment variable WEBHOOK_URL to the public https address (e.g. https://n8n.example.com/) and restart n8n.',
	'Behind a reverse proxy, set WEBHOOK_URL to the address the internet reaches.',
].join(' ');

/** Whether a field name from validation details is the body's `url` (also as `body.url` or `url[0]`). */
function namesUrlField(field: string): boolean {
	return field.split(/[.[\]]/).some((segment) => segment.toLowerCase() === 'url');
}

/**
 * Turns a failed POST /webhooks into an error that says what to do. The transport's error already explains
 * authentication, permission and rate-limit problems; this adds the two cases the trigger knows more about: the
 * webhook URL (refused by the service, or one the service will refuse) and the subscription limit.
 */
export function explainSubscribeFailure(node: INode, error: unknown, webhookUrl: string): NodeApiError {
	const original = error as { message?: unknown; description?: unknown; httpCode?: unknown; context?: IDataObject };
	const serviceMessage = typeof original.message === 'string' ? original.message : String(error);
	const serviceDescription = typeof original.description === 'string' ? original.description : '';
	const httpCode = typeof original.httpCode === 'string' ? original.httpCode : undefined;
	const serviceCode = original.context?.serviceErrorCode;
	const localProblem = webhookUrlProblem(webhookUrl);

	// When the service names the fields it refused, only those count. Without names (the contract does not show the
	// details' shape) the message is searched for "url", and a URL that looks unreachable is taken as the cause.
	const fieldDetails = serviceErrorDetailsOf(error).filter(
		(detail): detail is Required<ServiceErrorDetail> => detail.field !== undefined,
	);
	const urlDetail = fieldDetails.find((detail) => namesUrlField(detail.field));
	const urlRefused =
		serviceCode === 'validation_failed' &&
		(fieldDetails.length > 0 ? urlDetail !== undefined : /\burl\b/i.test(serviceMessage) || localProblem !== undefined);
	if (urlRefused) {
		const reason = localProblem ?? urlDetail?.message;
		const why = reason ? `: ${reason}` : '';
		return subscribeError(node, httpCode, {
			message: `The Booking Service refused this trigger's webhook URL ${webhookUrl}${why}`,
			description: `${URL_GUIDANCE} (${serviceMessage})`,
		});
	}

	const limitReached =
		httpCode !== undefined &&
		httpCode.startsWith('4') &&
		!['401', '403', '404', '429'].includes(httpCode) &&
		/subscriptions?\b.*\b(limit|maximum|at most|too many|25)\b|\b(limit|maximum|at most|too many)\b.*\bsubscriptions?/i.test(
			serviceMessage,
		);
	if (limitReached) {
		return subscribeError(node, httpCode, {
			message: `The Booking Service account already has the maximum of ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhook subscriptions`,
			description: `Delete subscriptions you no longer need in the app (Settings → API keys and webhooks), then activate the workflow again. Every active workflow with this trigger uses one subscription, and so does each test run of the trigger while it listens. (${serviceMessage})`,
		});
	}

	return subscribeError(node, httpCode, {
		message: `Could not subscribe to Booking Service events: ${serviceMessage}`,
		description: [
			serviceDescription,
			localProblem === undefined
				? ''
				: `Note also that the webhook URL ${webhookUrl} will not work: ${localProblem}. ${URL_GUIDANCE}`,
		]
			.filter((part) => part !== '')
			.join(' '),
	});
}

function subscribeError(
	node: INode,
	httpCode: string | undefined,
	text: { message: string; description: string },
): NodeApiError {
	return new NodeApiError(node, { message: text.message, httpCode: httpCode ?? null } as JsonObject, {
		message: text.message,
		description: text.description,
		httpCode,
	});
}

/** The hook context's view of whether this is the Test URL (a test run in the editor) or the Production URL. */
export function isTestSubscription(context: IHookFunctions): boolean {
	return context.getMode() === 'manual';
}
