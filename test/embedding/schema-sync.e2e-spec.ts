import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { JobStatus } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';

/** The host's own entity, which synchronize is there to create. */
@Entity({ name: 'host_orders' })
class HostOrder {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'text' })
  sku: string;
}

/** Everything Conveyor's migrations made in the schema: columns, indexes, functions and triggers. */
async function conveyorObjects(sql: Pool, schema: string): Promise<Record<string, string[]>> {
  const list = async (text: string) => (await sql.query<{ v: string }>(text, [schema])).rows.map((r) => r.v);
  return {
    columns:
      await list(`SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS v
      FROM information_schema.columns WHERE table_schema = $1 AND table_name LIKE 'conveyor\\_%' ORDER BY 1`),
    indexes: await list(`SELECT indexdef AS v FROM pg_indexes WHERE schemaname = $1 AND tablename LIKE 'conveyor\\_%' ORDER BY 1`),
    constraints: await list(`SELECT r.relname || ' ' || pg_get_constraintdef(c.oid) AS v FROM pg_constraint c
      JOIN pg_class r ON r.oid = c.conrelid JOIN pg_namespace n ON n.oid = r.relnamespace
      WHERE n.nspname = $1 AND r.relname LIKE 'conveyor\\_%' ORDER BY 1`),
    functions: await list(`SELECT p.proname || ' ' || md5(pg_get_functiondef(p.oid)) AS v FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 ORDER BY 1`),
    triggers: await list(`SELECT pg_get_triggerdef(t.oid) AS v FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal ORDER BY 1`),
  };
}

/**
 * A host whose TypeORM runs `synchronize: true` (with autoLoadEntities) on a schema Conveyor has migrated:
 * synchronize creates the host's table and leaves every Conveyor column, index, constraint, function and
 * trigger exactly as the migrations made them; TypeORM proposes no statement on conveyor_* tables, and jobs
 * still run.
 */
describe("a host with TypeORM's synchronize: true", () => {
  let schema: TestSchema;
  let sql: Pool;
  let t: TestApp | undefined;
  const start = (synchronize: boolean) =>
    createTestApp({
      schema: schema.schema,
      typeOrm: synchronize ? { synchronize: true, entities: [HostOrder] } : {},
      providers: [{ provide: RECORDER_POOL, useValue: { pool: sql, schema: schema.schema } }, RecordingHandler],
    });

  beforeAll(async () => {
    schema = await createTestSchema('embed_schema_sync');
    sql = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await sql.query(createInvocationsTableSql(schema.schema));
  });

  afterAll(async () => {
    await t?.close();
    await sql?.end();
    await schema?.drop();
  });

  it('leaves every Conveyor object as migrated, proposes nothing for conveyor_* tables, and jobs run', async () => {
    const migrated = await start(false);
    const before = await conveyorObjects(migrated.sql, schema.schema);
    await migrated.close();
    expect(before.indexes.length).toBeGreaterThan(3);
    expect(before.functions.length).toBeGreaterThan(0);

    t = await start(true);
    expect(await conveyorObjects(t.sql, schema.schema)).toEqual(before);
    const hostTable = await t.sql.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'host_orders'`, [
      schema.schema,
    ]);
    expect(hostTable.rowCount).toBe(1);

    const dataSource = t.app.get<DataSource>(getDataSourceToken());
    const proposed = (await dataSource.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);
    expect(proposed.filter((q) => /conveyor_/i.test(q))).toEqual([]);

    const job = await t.jobs.enqueue('TEST_RECORD', {});
    await waitFor(async () => (await t!.jobs.get(job.id))?.status === JobStatus.COMPLETED, { message: 'the job to complete' });
  });
});
