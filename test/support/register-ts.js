// Lets a child process started by a test run TypeScript directly: `node -r ./test/support/register-ts.js x.ts`.
// It compiles with @swc/core and the repository's .swcrc (decorator metadata, which Nest's DI needs),
// and resolves the tsconfig path aliases, so child processes run exactly the code the tests import.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '..', '..');
const { $schema: _schema, ...swcOptions } = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
const aliases = {
  '@conveyor/core': join(root, 'libs/conveyor/src'),
  '@conveyor/embedded-postgres': join(root, 'libs/embedded-postgres/src'),
  '@conveyor/client': join(root, 'libs/client/src'),
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  for (const [alias, target] of Object.entries(aliases)) {
    if (request === alias) return resolve.call(this, target, ...rest);
    if (request.startsWith(`${alias}/`)) return resolve.call(this, join(target, request.slice(alias.length + 1)), ...rest);
  }
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const source = readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...swcOptions, filename, swcrc: false, sourceMaps: 'inline' });
  module._compile(code, filename);
};
