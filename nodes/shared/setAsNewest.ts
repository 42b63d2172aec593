/**
 * The one eviction rule of the package's in-memory stores (the trigger's records, the time-zone caches): a Map
 * iterates in insertion order, so re-inserting a key makes it the newest, and the oldest entries beyond `maxSize`
 * are dropped from the front.
 */
export function setAsNewest<K, V>(map: Map<K, V>, key: K, value: V, maxSize: number): void {
	map.delete(key);
	map.set(key, value);
	for (const oldestKey of map.keys()) {
		if (map.size <= maxSize) break;
		map.delete(oldestKey);
	}
}
