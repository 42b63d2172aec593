import { describe, expect, it } from 'vitest';

import { mergeSorted } from '../../nodes/BookingService/helpers/mergeSorted.ts';

interface Row {
	id: string;
	at: number;
}

/** A lazy source that records how far it was read. */
function source(rows: Row[]) {
	const state = { pulled: 0, returned: false };
	const iterator: AsyncIterator<Row> = {
		next: async () =>
			state.pulled < rows.length
				? { done: false, value: rows[state.pulled++] }
				: { done: true, value: undefined },
		return: async () => {
			state.returned = true;
			return { done: true, value: undefined };
		},
	};
	return { iterator, state };
}

const rows = (...pairs: Array<[string, number]>) => pairs.map(([id, at]) => ({ id, at }));
const ascending = { compare: (a: Row, b: Row) => a.at - b.at, keyOf: (row: Row) => row.id };

describe('mergeSorted', () => {
	it('merges sorted sources into one sorted list', async () => {
		const a = source(rows(['a1', 1], ['a4', 4], ['a6', 6]));
		const b = source(rows(['b2', 2], ['b3', 3], ['b7', 7]));

		const merged = await mergeSorted([a.iterator, b.iterator], ascending);

		expect(merged.map((row) => row.id)).toEqual(['a1', 'b2', 'b3', 'a4', 'a6', 'b7']);
	});

	it('returns an item that appears in two sources once', async () => {
		const a = source(rows(['x', 1], ['y', 5]));
		const b = source(rows(['y', 5], ['z', 6]));

		expect((await mergeSorted([a.iterator, b.iterator], ascending)).map((row) => row.id)).toEqual([
			'x',
			'y',
			'z',
		]);
	});

	it('on equal order, the earlier source goes first', async () => {
		const a = source(rows(['a', 1]));
		const b = source(rows(['b', 1]));

		expect((await mergeSorted([b.iterator, a.iterator], ascending)).map((row) => row.id)).toEqual([
			'b',
			'a',
		]);
	});

	it('stops reading at the limit and closes the sources', async () => {
		const a = source(rows(['a1', 1], ['a2', 2], ['a3', 3], ['a4', 4]));
		const b = source(rows(['b9', 9]));

		const merged = await mergeSorted([a.iterator, b.iterator], { ...ascending, limit: 2 });

		expect(merged.map((row) => row.id)).toEqual(['a1', 'a2']);
		expect(a.state.pulled).toBe(3); // the head after the last taken one, no further
		expect(a.state.returned && b.state.returned).toBe(true);
	});

	it('handles no sources and empty sources', async () => {
		expect(await mergeSorted([], ascending)).toEqual([]);
		expect(await mergeSorted([source([]).iterator], ascending)).toEqual([]);
	});
});
