// The repository's .swcrc as @swc/core's transform options (its $schema key left out): decorator metadata, which
// Nest's DI needs, and CommonJS modules. Used by register-ts.js and by the benchmark's compiled copy.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

function readSwcOptions(root) {
  const { $schema: _schema, ...options } = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
  return { ...options, swcrc: false };
}

module.exports = { readSwcOptions };
