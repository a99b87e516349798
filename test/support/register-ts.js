// Lets a child process started by a test run TypeScript directly: `node -r ./test/support/register-ts.js x.ts`.
// It compiles with @swc/core and the repository's .swcrc (decorator metadata, which Nest's DI needs),
// and resolves the tsconfig path aliases, so child processes run exactly the code the tests import.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { transformSync } = require('@swc/core');
const { installPathAliases } = require('./path-aliases');
const { readSwcOptions } = require('./swc-options');

const root = join(__dirname, '..', '..');
const swcOptions = readSwcOptions(root);
installPathAliases(root);

require.extensions['.ts'] = function (module, filename) {
  const source = readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...swcOptions, filename, sourceMaps: 'inline' });
  module._compile(code, filename);
};
