// n8n's multi-page forms as a browser drives them (n8n's form page script, form-trigger.handlebars), without the
// browser: submit a page as multipart `field-<n>` values, read the waiting URL n8n answers with, and load the next page
// once the execution has moved on to it. The same on 2.41 (signed waiting URLs) and 1.x.

export interface FormPage {
	/** Where this page is answered (the execution's form-waiting URL). */
	url: string;
	html: string;
	/** The values a dropdown offers. */
	options(field: string): string[];
}

const PAGE_WAIT_MS = 30_000;

function decode(text: string): string {
	return text
		.replace(/&#x27;|&#39;/g, "'")
		.replace(/&quot;/g, '"')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&amp;/g, '&');
}

function page(url: string, html: string): FormPage {
	return {
		url,
		html,
		options: (field) => {
			const select = new RegExp(`<select[^>]*name=['"]${field}['"][^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? '';
			return [...select.matchAll(/<option[^>]*value=['"]([^'"]*)['"]/g)].map((match) => decode(match[1])).filter(Boolean);
		},
	};
}

async function post(url: string, values: string[]): Promise<string> {
	const body = new FormData();
	values.forEach((value, index) => body.set(`field-${index}`, value));
	const response = await fetch(url, { method: 'POST', body, redirect: 'manual', signal: AbortSignal.timeout(PAGE_WAIT_MS) });
	const text = await response.text();
	if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${text.slice(0, 300)}`);
	const waiting = (JSON.parse(text) as { formWaitingUrl?: string }).formWaitingUrl;
	if (!waiting) throw new Error(`POST ${url} named no next page: ${text.slice(0, 300)}`);
	return waiting;
}

/** What tells two pages apart: their heading and their fields (the HTML also carries per-request tokens). */
function identity(html: string): string {
	const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)?.[1]?.trim() ?? '';
	const fields = [...html.matchAll(/name=['"](field-\d+)['"]/g)].map((match) => match[1]).join(',');
	return `${heading}|${fields}`;
}

/** n8n's answer to the page script's poll: "form-waiting" once the execution waits at a form page. */
async function executionStatus(url: string): Promise<string> {
	const status = new URL(url);
	status.pathname += '/n8n-execution-status';
	const response = await fetch(status, { signal: AbortSignal.timeout(PAGE_WAIT_MS) });
	return (await response.text()).trim();
}

/**
 * The page at `url` once the execution waits there and it is no longer `previous`. Like the page script, it asks
 * for the execution's status first: n8n holds a page request for an execution that is not waiting yet.
 */
async function nextPage(url: string, previous?: string): Promise<FormPage> {
	const deadline = Date.now() + PAGE_WAIT_MS;
	for (;;) {
		if ((await executionStatus(url)) === 'form-waiting') {
			const response = await fetch(url, { signal: AbortSignal.timeout(PAGE_WAIT_MS) });
			const html = await response.text();
			if (response.status === 200 && (previous === undefined || identity(html) !== identity(previous))) {
				return page(url, html);
			}
		}
		if (Date.now() > deadline) throw new Error(`no next page at ${url} after ${PAGE_WAIT_MS} ms`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Sends the form trigger's page (its fields in order) and returns the next page. */
export async function submitFirstPage(formUrl: string, values: string[]): Promise<FormPage> {
	return await nextPage(await post(formUrl, values));
}

/** Answers a later page and returns the one after it (a further page or the form's ending). */
export async function submitPage(current: FormPage, values: string[]): Promise<FormPage> {
	return await nextPage(await post(current.url, values), current.html);
}
