// Copies what tsc does not emit (node and credential icons, codex files) into dist/,
// mirroring the source layout so each node finds its icon beside its compiled file.
const { src, dest } = require('gulp');

function buildIcons() {
	return src(['nodes/**/*.{svg,png}', 'nodes/**/*.node.json', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
