import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { conveyorMigrationScript, JobStatus } from '@conveyor/core';
import { MigratorService } from '@conveyor/core/storage/migrations/migrator.service';
import { MIGRATIONS } from '@conveyor/core/storage/migrations/migrations';
import { createInvocationsTableSql, RecordingHandler, RECORDER_POOL } from '../support/recording-handler';
import { schemaSnapshot } from '../support/schema-snapshot';
import { standaloneMigrator } from '../support/standalone-migrator';
import { createTestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';
import { waitFor } from '../support/wait-for';

/**
 * `conveyorMigrationScript`, for a host that applies Conveyor's schema with its own tool and runs it with
 * `migrate: false`: the script makes the schema the start-up migrator makes, the migrator then finds nothing to
 * do, and an app with `migrate: false` on it is ready and works jobs.
 */
describe('conveyorMigrationScript', () => {
  let pool: Pool;
  const schemas: TestSchema[] = [];

  beforeAll(async () => {
    Logger.overrideLogger(['error', 'warn']);
    pool = new Pool({ connectionString: process.env[TEST_DATABASE_URL_ENV], max: 3 });
  });

  afterAll(async () => {
    await Promise.all(schemas.map((s) => s.drop()));
    await pool?.end();
  });

  const newSchema = async (label: string) => {
    const schema = await createTestSchema(label);
    schemas.push(schema);
    return schema;
  };

  const snapshot = async (schema: string) => {
    const client = await pool.connect();
    return schemaSnapshot(client, schema).finally(() => client.release());
  };

  /** Runs a script as a host's migration tool would: one transaction. */
  const apply = async (script: string) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(script);
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  };

  it('makes the schema the start-up migrator makes, and the migrator then finds nothing to do', async () => {
    const [scripted, migrated] = await Promise.all([newSchema('script_scripted'), newSchema('script_migrated')]);
    await apply(conveyorMigrationScript({ schema: scripted.schema }));
    await standaloneMigrator(pool, migrated.schema).migrate();
    expect(await snapshot(scripted.schema)).toEqual(await snapshot(migrated.schema));

    const migrator = standaloneMigrator(pool, scripted.schema);
    expect(await migrator.isUpToDate()).toBe(true);
    await migrator.migrate();
    const { rows } = await pool.query<{ id: number }>(`SELECT id FROM ${scripted.schema}.conveyor_migrations ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
  });

  it('upgrades with the migrations after a given id only', async () => {
    const schema = await newSchema('script_upgrade');
    const [first, ...rest] = MIGRATIONS;
    const upToFirst = conveyorMigrationScript({ schema: schema.schema }).split(`-- Migration ${rest[0].id}:`)[0];
    await apply(upToFirst);
    expect(await standaloneMigrator(pool, schema.schema).isUpToDate()).toBe(false);

    const upgrade = conveyorMigrationScript({ schema: schema.schema, after: first.id });
    expect(upgrade).not.toContain(`-- Migration ${first.id}:`);
    await apply(upgrade);
    expect(await standaloneMigrator(pool, schema.schema).isUpToDate()).toBe(true);
    expect(() => conveyorMigrationScript({ after: -1 })).toThrow(RangeError);
  });

  it("takes the migrator's lock: while an instance migrates the schema, the script waits for it", async () => {
    const schema = await newSchema('script_lock');
    // An instance's migrator, mid-migration: its transaction holds the lock.
    const instance = await pool.connect();
    try {
      await instance.query('BEGIN');
      await instance.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`conveyor-migrate:${schema.schema}`]);
      const applied = apply(conveyorMigrationScript({ schema: schema.schema }));
      await waitFor(
        async () =>
          (
            await pool.query(
              `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
               WHERE l.locktype = 'advisory' AND NOT l.granted AND a.query LIKE '%conveyor-migrate:' || $1 || '%'`,
              [schema.schema],
            )
          ).rowCount! > 0,
        {
          message: 'the script to wait for the lock',
        },
      );
      expect(await standaloneMigrator(pool, schema.schema).isUpToDate()).toBe(false);
      await instance.query('COMMIT');
      await applied;
    } finally {
      instance.release();
    }
    expect(await standaloneMigrator(pool, schema.schema).isUpToDate()).toBe(true);
  });

  it('serves an app with migrate: false: ready, and jobs run', async () => {
    const schema = await newSchema('script_app');
    await apply(conveyorMigrationScript({ schema: schema.schema }));
    await pool.query(createInvocationsTableSql(schema.schema));
    const t = await createTestApp({
      schema: schema.schema,
      engine: { migrate: false },
      providers: [RecordingHandler, { provide: RECORDER_POOL, useValue: { pool, schema: schema.schema } }],
      http: false,
    });
    try {
      expect(await t.app.get(MigratorService).isUpToDate()).toBe(true);
      const job = await t.jobs.enqueue('TEST_RECORD', {});
      await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.COMPLETED, { message: 'the job to complete' });
    } finally {
      await t.close();
    }
  });
});
