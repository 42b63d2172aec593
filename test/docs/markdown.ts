// Markdown pages read as sections, for the docs tests: a section runs from its heading to the next heading of the
// same or a higher level (so it includes its subsections); headings inside code blocks are not headings.
export interface Section {
	heading: string;
	level: number;
	text: string;
}

export function markdownSections(markdown: string): Section[] {
	const lines = markdown.split('\n');
	const headings: Array<{ line: number; level: number; heading: string }> = [];
	let inCode = false;
	lines.forEach((line, index) => {
		if (line.startsWith('```')) inCode = !inCode;
		const match = inCode ? null : /^(#{1,6}) (.+)$/.exec(line);
		if (match) headings.push({ line: index, level: match[1]!.length, heading: match[2]!.trim() });
	});
	return headings.map((current, index) => {
		const next = headings.slice(index + 1).find((later) => later.level <= current.level);
		return {
			heading: current.heading,
			level: current.level,
			text: lines.slice(current.line, next?.line ?? lines.length).join('\n'),
		};
	});
}

/** Words as `wc -w` counts them. */
export function wordCount(text: string): number {
	return text.split(/\s+/).filter(Boolean).length;
}
