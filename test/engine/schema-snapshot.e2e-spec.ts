import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { ConveyorDatabase } from '@conveyor/core/storage/connections/conveyor-database.service';
import { MIGRATIONS } from '@conveyor/core/storage/migrations/migrations';
import { MigratorService } from '@conveyor/core/storage/migrations/migrator.service';
import { SCHEMA_SNAPSHOT_PATH, schemaSnapshot, UPDATE_SCHEMA_SNAPSHOT_ENV } from '../support/schema-snapshot';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';

const SNAPSHOT_FILE = join(__dirname, '..', '..', SCHEMA_SNAPSHOT_PATH);
const REGENERATE_HINT =
  `The migrated schema differs from ${SCHEMA_SNAPSHOT_PATH}. If the change is intended (a new migration), ` +
  'regenerate the snapshot with `npm run schema:snapshot` and commit it with the migration.';

/** Fails with the way to regenerate the snapshot when `actual` is not what the checked-in file says. */
async function expectSnapshotFile(actual: string): Promise<void> {
  const expected = await readFile(SNAPSHOT_FILE, 'utf8').catch(() => '');
  try {
    expect(actual).toEqual(expected);
  } catch (err) {
    (err as Error).message = `${REGENERATE_HINT}\n\n${(err as Error).message}`;
    throw err;
  }
}

/** A migrator for `schema`, on a pool of its own (no Nest app: migrating needs nothing else). */
function migratorFor(pool: Pool, schema: string): MigratorService {
  return new MigratorService(new ConveyorDatabase({ options: { schema }, driver: { master: pool } } as unknown as DataSource));
}

/**
 * The checked-in schema snapshot is what the migrations make: a fresh schema, migrated, reads back exactly as
 * libs/conveyor/src/storage/schema.sql says. And migrating is safe to repeat and to run from two instances at once.
 */
describe('the schema snapshot', () => {
  let pool: Pool;
  const schemas: TestSchema[] = [];
  const freshSchema = async (label: string) => {
    const schema = await createTestSchema(label);
    schemas.push(schema);
    return schema.schema;
  };
  const snapshotOf = async (schema: string) => {
    const client = await pool.connect();
    try {
      return await schemaSnapshot(client, schema);
    } finally {
      client.release();
    }
  };

  beforeAll(() => {
    Logger.overrideLogger(['error', 'warn']);
    pool = new Pool({ connectionString: process.env[TEST_DATABASE_URL_ENV], max: 4 });
  });

  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
    await pool?.end();
  });

  it(`is what the migrations make of a fresh schema (${SCHEMA_SNAPSHOT_PATH})`, async () => {
    const schema = await freshSchema('snapshot');
    await migratorFor(pool, schema).migrate();
    const actual = await snapshotOf(schema);

    if (process.env[UPDATE_SCHEMA_SNAPSHOT_ENV]) {
      await writeFile(SNAPSHOT_FILE, actual);
      return;
    }
    await expectSnapshotFile(actual);
  });

  it('comes out the same when two instances migrate at once and again later, each migration applied once', async () => {
    const schema = await freshSchema('snapshot_race');
    const [a, b] = [migratorFor(pool, schema), migratorFor(pool, schema)];
    await Promise.all([a.migrate(), b.migrate()]);
    await a.migrate();

    const { rows } = await pool.query<{ id: number; name: string }>(`SELECT id, name FROM ${schema}.conveyor_migrations ORDER BY id`);
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ id: m.id, name: m.name })));
    expect(await b.isUpToDate()).toBe(true);
    expect(b.latest).toBe(MIGRATIONS.at(-1)!.id);
    await expectSnapshotFile(await snapshotOf(schema));
  });
});
