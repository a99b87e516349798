import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { MigrationHistoryError } from '@conveyor/core/storage/migrations/migration-history.error';
import { migrationLockSql } from '@conveyor/core/storage/migrations/migration-script';
import { MIGRATIONS } from '@conveyor/core/storage/migrations/migrations';
import { standaloneMigrator } from '../support/standalone-migrator';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';
import { waitFor } from '../support/wait-for';

/**
 * The migrator: numbered migrations, each applied once, all in one transaction under a lock, so instances that
 * start together do not trip over each other; a schema whose history is not this build's is refused, not patched.
 */
describe('migrations', () => {
  let pool: Pool;
  const schemas: TestSchema[] = [];
  const freshSchema = async (label: string) => {
    const schema = await createTestSchema(label);
    schemas.push(schema);
    return schema.schema;
  };
  const applied = async (schema: string) =>
    (await pool.query<{ id: number; name: string }>(`SELECT id, name FROM ${schema}.conveyor_migrations ORDER BY id`)).rows;

  beforeAll(() => {
    Logger.overrideLogger(['error', 'warn']);
    pool = new Pool({ connectionString: process.env[TEST_DATABASE_URL_ENV], max: 4 });
  });

  afterAll(async () => {
    for (const schema of schemas) await schema.drop();
    await pool?.end();
  });

  it('are applied once each when two instances migrate at once, and migrating again changes nothing', async () => {
    const schema = await freshSchema('migrate_race');
    const [a, b] = [standaloneMigrator(pool, schema), standaloneMigrator(pool, schema)];
    expect(await a.isUpToDate()).toBe(false);

    await Promise.all([a.migrate(), b.migrate()]);
    await a.migrate();

    expect(await applied(schema)).toEqual(MIGRATIONS.map((m) => ({ id: m.id, name: m.name })));
    expect(await b.isUpToDate()).toBe(true);
    expect(b.latest).toBe(MIGRATIONS.at(-1)!.id);
  });

  it("wait for another instance's migration past the database's lock_timeout and statement_timeout, and keep its lock_timeout for the migrations", async () => {
    const schema = await freshSchema('migrate_limits');
    const url = new URL(process.env[TEST_DATABASE_URL_ENV]!);
    url.searchParams.set('options', '-c lock_timeout=50ms -c statement_timeout=100ms');
    const limited = new Pool({ connectionString: url.toString(), max: 2 });
    const other = await pool.connect();
    try {
      // Another instance's migration, holding the lock longer than either limit.
      await other.query('BEGIN');
      await other.query(migrationLockSql(schema));
      const migrator = standaloneMigrator(limited, schema);
      const migrated = migrator.migrate();
      await waitFor(
        async () =>
          (
            await pool.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'advisory' AND query LIKE $1`, [
              `%conveyor-migrate:${schema}%`,
            ])
          ).rowCount! > 0,
        {
          message: 'the migrator to wait for the lock',
        },
      );
      // Held past both limits: a wait bounded by either would have failed by now.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await other.query('COMMIT');
      await migrated;
      expect(await migrator.isUpToDate()).toBe(true);
      // The migrations' own lock waits are bounded as the database says.
      await other.query('BEGIN');
      await other.query(`LOCK TABLE ${schema}.conveyor_migrations`);
      await expect(migrator.migrate()).rejects.toThrow('lock timeout');
    } finally {
      await other.query('ROLLBACK');
      other.release();
      await limited.end();
    }
  });

  it('leave alone a migration of a newer build, and still count as up to date', async () => {
    const schema = await freshSchema('migrate_newer');
    const migrator = standaloneMigrator(pool, schema);
    await migrator.migrate();
    const newer = { id: migrator.latest + 1, name: 'from-a-newer-build' };
    await pool.query(`INSERT INTO ${schema}.conveyor_migrations (id, name) VALUES ($1, $2)`, [newer.id, newer.name]);

    await migrator.migrate();

    expect(await applied(schema)).toEqual([...MIGRATIONS.map((m) => ({ id: m.id, name: m.name })), newer]);
    expect(await migrator.isUpToDate()).toBe(true);
  });

  it('refuse a schema migrated by a pre-release build, whose migration 1 is another one, and change nothing', async () => {
    const schema = await freshSchema('migrate_prerelease');
    await pool.query(
      `CREATE TABLE ${schema}.conveyor_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await pool.query(`INSERT INTO ${schema}.conveyor_migrations (id, name) VALUES (1, 'create-jobs'), (8, 'leadership-lease')`);
    const migrator = standaloneMigrator(pool, schema);

    const failure = await migrator.migrate().catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(MigrationHistoryError);
    expect((failure as Error).message).toBe(
      `Schema "${schema}" records migration 1 as "create-jobs", but this build's migration 1 is "baseline". ` +
        'It was migrated by a pre-release build of Conveyor: drop its conveyor_* tables and functions (or the schema) and start again.',
    );
    expect(await applied(schema)).toEqual([
      { id: 1, name: 'create-jobs' },
      { id: 8, name: 'leadership-lease' },
    ]);
    expect(await migrator.isUpToDate()).toBe(false);
  });
});
