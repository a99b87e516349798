import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { SCHEMA_SNAPSHOT_PATH, schemaSnapshot, UPDATE_SCHEMA_SNAPSHOT_ENV } from '../support/schema-snapshot';
import { standaloneMigrator } from '../support/standalone-migrator';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';

const SNAPSHOT_FILE = join(__dirname, '..', '..', SCHEMA_SNAPSHOT_PATH);
const REGENERATE_HINT =
  `The migrated schema differs from ${SCHEMA_SNAPSHOT_PATH}. If the change is intended (a new migration), ` +
  'regenerate the snapshot with `npm run schema:snapshot` and commit it with the migration.';

/**
 * The checked-in schema snapshot is what the migrations make: a fresh schema, migrated, reads back from
 * PostgreSQL's catalogs exactly as libs/conveyor/src/storage/schema.sql says.
 */
describe('the schema snapshot', () => {
  let pool: Pool;
  let schema: TestSchema;

  beforeAll(async () => {
    Logger.overrideLogger(['error', 'warn']);
    pool = new Pool({ connectionString: process.env[TEST_DATABASE_URL_ENV], max: 2 });
    schema = await createTestSchema('snapshot');
  });

  afterAll(async () => {
    await schema?.drop();
    await pool?.end();
  });

  it(`is what the migrations make of a fresh schema (${SCHEMA_SNAPSHOT_PATH})`, async () => {
    await standaloneMigrator(pool, schema.schema).migrate();
    const client = await pool.connect();
    const actual = await schemaSnapshot(client, schema.schema).finally(() => client.release());

    if (process.env[UPDATE_SCHEMA_SNAPSHOT_ENV]) {
      await writeFile(SNAPSHOT_FILE, actual);
      return;
    }
    const expected = await readFile(SNAPSHOT_FILE, 'utf8').catch(() => '');
    try {
      expect(actual).toEqual(expected);
    } catch (err) {
      (err as Error).message = `${REGENERATE_HINT}\n\n${(err as Error).message}`;
      throw err;
    }
  });
});
