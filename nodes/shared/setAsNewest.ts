/** A Map iterates in insertion order: re-inserting makes a key the newest, and the oldest beyond `maxSize` go first. */
export function setAsNewest<K, V>(map: Map<K, V>, key: K, value: V, maxSize: number): void {
	map.delete(key);
	map.set(key, value);
	for (const oldestKey of map.keys()) {
		if (map.size <= maxSize) break;
		map.delete(oldestKey);
	}
}
