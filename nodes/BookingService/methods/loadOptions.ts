import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

/**
 * Every IANA time zone this Node.js knows, UTC first. Intl lists canonical names only and leaves out UTC; the
 * service accepts any IANA name, so an alias typed in an expression (Asia/Calcutta) still works.
 */
export async function getTimeZones(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const zones = Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC');
	return ['UTC', ...zones].map((zone) => ({ name: zone.replace(/_/g, ' '), value: zone }));
}
