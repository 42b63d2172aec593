// Build steps tsc does not do. `clean` empties dist/ first, so files of renamed or deleted sources never reach
// a packed tarball; `build:icons` copies icons and codex files into dist/, mirroring the source layout so each
// node finds its icon beside its compiled file.
const { rmSync } = require('fs');
const { src, dest } = require('gulp');

function clean(done) {
	rmSync('dist', { recursive: true, force: true });
	done();
}

function buildIcons() {
	return src(['nodes/**/*.{svg,png}', 'nodes/**/*.node.json', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.clean = clean;
exports['build:icons'] = buildIcons;
