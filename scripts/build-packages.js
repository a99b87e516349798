// Builds the publishable packages into dist/packages/<name>: compiled .js and .d.ts, the package's own
// package.json, README.md and LICENSE, and its static assets. `npm pack` works on each folder.
// Usage: node scripts/build-packages.js [core|client ...]   (no argument: all of them)
'use strict';
const { execFileSync } = require('node:child_process');
const { cpSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');

/** Each package: its source folder, and the asset folders (relative to src) copied next to the compiled code. */
const PACKAGES = {
  core: { dir: 'libs/conveyor', assets: ['http/dashboard/assets'] },
  client: { dir: 'libs/client', assets: [] },
};

const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
const names = process.argv.slice(2);
for (const name of names.length > 0 ? names : Object.keys(PACKAGES)) {
  const pkg = PACKAGES[name];
  if (!pkg) throw new Error(`Unknown package "${name}" (known: ${Object.keys(PACKAGES).join(', ')})`);
  const source = join(root, pkg.dir);
  const out = join(root, 'dist', 'packages', name);
  // A file deleted from the sources must not survive in the package from an earlier build.
  rmSync(out, { recursive: true, force: true });
  execFileSync(process.execPath, [tsc, '-p', join(source, 'tsconfig.package.json')], { stdio: 'inherit' });
  for (const file of ['package.json', 'README.md', 'LICENSE']) cpSync(join(source, file), join(out, file));
  // dashboard.controller.ts reads its files from `assets` next to its compiled self.
  for (const assets of pkg.assets) cpSync(join(source, 'src', assets), join(out, assets), { recursive: true });
  console.log(`dist/packages/${name}: built`);
}
