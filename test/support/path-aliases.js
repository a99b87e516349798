// The tsconfig path aliases (@conveyor/core, @conveyor/embedded-postgres, @conveyor/client) as Node resolutions,
// pointing into the libraries under `root`: the repository (register-ts.js) or a compiled copy of it
// (register-compiled.js).
'use strict';
const { join } = require('node:path');
const Module = require('node:module');

function installPathAliases(root) {
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
}

module.exports = { installPathAliases };
