/**
 * What a model generated, counted: a model that never generated a burst past a cap, or a 429 on page 3, proves nothing
 * about them. Each command counts a label as it runs (`'fault: 429 on page 3'`); the report lists every label with
 * its count and names the expected ones that never came up.
 */
export class Coverage {
	readonly #counts = new Map<string, number>();
	#histories = 0;
	#steps = 0;

	readonly name: string;

	constructor(name: string) {
		this.name = name;
	}

	history(steps: number): void {
		this.#histories += 1;
		this.#steps += steps;
	}

	count(label: string, by = 1): void {
		this.#counts.set(label, (this.#counts.get(label) ?? 0) + by);
	}

	/** Labels in `expected` that were never counted. */
	missing(expected: readonly string[]): string[] {
		return expected.filter((label) => !this.#counts.has(label));
	}

	report(expected: readonly string[] = []): string {
		const lines = [`${this.name}: ${this.#histories} histories, ${this.#steps} steps`];
		for (const [label, count] of [...this.#counts].sort(([a], [b]) => a.localeCompare(b))) {
			lines.push(`  ${label}: ${count}`);
		}
		const missing = this.missing(expected);
		if (missing.length > 0) lines.push(`  never generated: ${missing.join(', ')}`);
		return lines.join('\n');
	}
}
