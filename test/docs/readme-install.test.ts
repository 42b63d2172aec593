/**
 * The README's "Install in n8n", where a new user hesitated: the panel step names the checkbox n8n shows before its
 * Install button, and the tarball route says the panel will not list that install and how to update and remove it
 * (test/package/manual-install runs those commands as written).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { markdownSections } from './markdown.ts';

const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const section = markdownSections(readme).find((candidate) => candidate.heading === 'Install in n8n')!;
const text = section.text.replace(/\s+/g, ' ');

/** n8n's label for the checkbox (settings.communityNodes.installModal.checkbox.label in @n8n/i18n, 2.41.1). */
const RISK_CHECKBOX = 'I understand the risks of installing unverified code from a public source.';

describe("README: Install in n8n", () => {
	it('the Community Nodes step names the risk checkbox, as n8n labels it, before Install', () => {
		const panelStep = text.slice(text.indexOf('**Community Nodes panel**'), text.indexOf('**From a packed tarball**'));
		const named = /tick \*(I understand the risks[^*]*)\* and click \*\*Install\*\*/.exec(panelStep);
		expect(named, panelStep).not.toBeNull();
		expect(RISK_CHECKBOX.startsWith(named![1]!.replace(/…$/, ''))).toBe(true);
	});

	it('the tarball route says the panel does not list it, and gives the update and remove commands', () => {
		expect(text).toContain('A package installed this way is not listed in *Settings → Community Nodes*');
		expect(text).toMatch(/npm install --legacy-peer-deps \/path\/to\/n8n-nodes-booking-service-<newer version>\.tgz +# update/);
		expect(text).toMatch(/npm uninstall --legacy-peer-deps n8n-nodes-booking-service +# remove/);
	});
});
