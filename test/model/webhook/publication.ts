// When the user had the workflow published, as the reference needs it: what the service still had to deliver while
// the user had it unpublished is dropped (the docs: deliveries meanwhile are refused).

export class Publication {
	/**
	 * Production subscriptions that existed when the user unpublished: their pending deliveries may be dropped, at once
	 * or, when the delete failed, at the next publish (the docs: deliveries meanwhile are refused).
	 */
	readonly unpublished = new Set<string>();
	/** When the user unpublished and published again, n8n's clock. */
	readonly unpublishedSpans: Array<[number, number]> = [];
	#unpublishedSinceMs: number | undefined = 0;

	/** Whether the user wants the workflow published (n8n re-publishes it after a restart). */
	get published(): boolean {
		return this.#unpublishedSinceMs === undefined;
	}

	/** The user publishes (or means to: n8n re-activates a published workflow after a restart). */
	markPublished(): void {
		if (this.#unpublishedSinceMs !== undefined) this.unpublishedSpans.push([this.#unpublishedSinceMs, Date.now()]);
		this.#unpublishedSinceMs = undefined;
	}

	markUnpublished(): void {
		this.#unpublishedSinceMs ??= Date.now();
	}

	/** Whether the user had the workflow unpublished at `ms`. */
	unpublishedAt(ms: number): boolean {
		return this.#unpublishedSinceMs !== undefined && ms >= this.#unpublishedSinceMs
			? true
			: this.unpublishedSpans.some(([from, to]) => ms >= from && ms <= to);
	}
}
