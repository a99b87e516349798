// Lets a process run a compiled copy of the repository (JavaScript files where the TypeScript ones were, as
// bench/processes/compiled-copy.ts makes it): `node -r <copy>/test/support/register-compiled.js <copy>/x.js`.
// Only the path aliases are needed; they point into the copy this file is part of.
'use strict';
const { join } = require('node:path');
const { installPathAliases } = require('./path-aliases');

installPathAliases(join(__dirname, '..', '..'));
