// Rewrites the configuration table in docs/configuration.md from apps/server/src/config/env-settings.ts.
'use strict';
require('../test/support/register-ts.js');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { withConfigTable } = require('../apps/server/src/config/render-config-table.ts');

const file = join(__dirname, '..', 'docs', 'configuration.md');
writeFileSync(file, withConfigTable(readFileSync(file, 'utf8')));
console.log('docs/configuration.md configuration table updated');
