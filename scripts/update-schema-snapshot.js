// Regenerates libs/conveyor/src/storage/schema.sql: runs the schema snapshot test in its writing mode, so the
// schema is migrated on the same PostgreSQL the tests would choose (TEST_DATABASE_URL, Testcontainers, embedded).
'use strict';
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

const root = join(__dirname, '..');
const result = spawnSync(
  process.execPath,
  [require.resolve('jest/bin/jest'), '--runInBand', 'test/engine/schema-snapshot.e2e-spec.ts'],
  // The name is UPDATE_SCHEMA_SNAPSHOT_ENV in test/support/schema-snapshot.ts.
  { cwd: root, stdio: 'inherit', env: { ...process.env, CONVEYOR_UPDATE_SCHEMA_SNAPSHOT: '1' } },
);
if (result.status === 0) console.log('libs/conveyor/src/storage/schema.sql updated');
process.exit(result.status ?? 1);
