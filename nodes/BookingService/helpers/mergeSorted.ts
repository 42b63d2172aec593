// Merges already-sorted lazy sources (a service page at a time), so stopping at `limit` also stops the requests. An
// item whose key was taken is skipped (a booking cancelled mid-listing shows under both statuses); ties go to the
// earlier source.
export async function mergeSorted<T>(
	sources: Array<AsyncIterator<T>>,
	options: { compare: (a: T, b: T) => number; keyOf: (item: T) => string; limit?: number },
): Promise<T[]> {
	const heads: Array<IteratorResult<T>> = [];
	// One source at a time rather than all at once: gentler on the rate limit, and the order of requests stays stable.
	for (const source of sources) heads.push(await source.next());
	const merged: T[] = [];
	const taken = new Set<string>();

	while (options.limit === undefined || merged.length < options.limit) {
		let best = -1;
		for (let index = 0; index < heads.length; index++) {
			const head = heads[index];
			if (head.done) continue;
			if (best === -1 || options.compare(head.value, heads[best].value as T) < 0) best = index;
		}
		if (best === -1) break;
		const item = heads[best].value as T;
		const key = options.keyOf(item);
		if (!taken.has(key)) {
			taken.add(key);
			merged.push(item);
		}
		heads[best] = await sources[best].next();
	}
	await Promise.all(sources.map(async (source) => await source.return?.()));
	return merged;
}
