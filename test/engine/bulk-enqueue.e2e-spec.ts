import { getDataSourceToken } from '@nestjs/typeorm';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { installInsertProbe, InsertProbe } from '../support/insert-probe';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';

const MAX_BATCH = 5;

/**
 * `enqueueMany` beyond one statement's worth (`maxBatchSize` rows or 16 MiB of payload, statement-budget.ts): the
 * rows go as several statements in one transaction, all or nothing, answered and stored in request order.
 */
describe('enqueueMany beyond one statement', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;
  let probe: InsertProbe;

  beforeAll(async () => {
    schema = await createTestSchema('bulkenqueue');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 1 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      http: false,
      engine: { runWorkers: false, maxBatchSize: MAX_BATCH },
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
    });
    probe = await installInsertProbe(t.sql, schema.schema);
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  /** The last `seq` number handed out, whether its row was rolled back or not. */
  const lastSeq = async () =>
    (
      await t.sql.query<{ last: string }>(
        `SELECT coalesce(last_value, 0)::text AS last FROM pg_sequences WHERE schemaname = $1 AND sequencename = 'conveyor_jobs_seq_seq'`,
        [schema.schema],
      )
    ).rows[0].last;
  const storedIds = async (ids: string[]) =>
    (await t.sql.query<{ id: string }>(`SELECT id FROM ${t.jobsTable} WHERE id = ANY($1::uuid[]) ORDER BY seq`, [ids])).rows.map(
      (r) => r.id,
    );

  it('11 jobs with maxBatchSize 5: statements of 5, 5 and 1 in one transaction, stored in request order', async () => {
    const jobs = await t.jobs.enqueueMany(Array.from({ length: 11 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i } })));
    expect(jobs.map((j) => j.payload)).toEqual(Array.from({ length: 11 }, (_, i) => ({ i })));
    const ids = jobs.map((j) => j.id);
    expect(await storedIds(ids)).toEqual(ids);
    const statements = await probe.statementsOf(ids);
    expect(statements.map((s) => s.rows)).toEqual([5, 5, 1]);
    expect(new Set(statements.map((s) => s.xid)).size).toBe(1);
  });

  it('a row PostgreSQL refuses in the last statement leaves none of the earlier statements’ rows', async () => {
    const marker = `refused-${Date.now()}`;
    const requests = Array.from({ length: 11 }, (_, i) => ({ type: 'TEST_RECORD', payload: { marker, i } }));
    requests[10] = { type: 'TEST_RECORD', payload: { ...probe.poisonRow, marker, i: 10 } };
    const seqBefore = await lastSeq();
    await expect(t.jobs.enqueueMany(requests)).rejects.toThrow('poisoned row');
    const { rows } = await t.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE payload->>'marker' = $1`, [
      marker,
    ]);
    expect(rows[0].n).toBe(0);
    // The two statements before the refused row did run: a rollback does not give back the seq numbers they took.
    expect(BigInt(await lastSeq()) - BigInt(seqBefore)).toBeGreaterThanOrEqual(10n);
  });

  it('payloads past 16 MiB start a new statement: three jobs of 6 MiB take two', async () => {
    const big = 'x'.repeat(6 * 1024 * 1024);
    const jobs = await t.jobs.enqueueMany(Array.from({ length: 3 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i, big } })));
    const ids = jobs.map((j) => j.id);
    const statements = await probe.statementsOf(ids);
    expect(statements.map((s) => s.rows)).toEqual([2, 1]);
    expect(new Set(statements.map((s) => s.xid)).size).toBe(1);
    const { rows } = await t.sql.query<{ whole: number }>(
      `SELECT count(*)::int AS whole FROM ${t.jobsTable} WHERE id = ANY($1::uuid[]) AND length(payload->>'big') = $2`,
      [ids, big.length],
    );
    expect(rows[0].whole).toBe(3);
  });

  it('an idempotency key repeated in a later statement is answered with the job the first one created', async () => {
    const key = `bulk-key-${Date.now()}`;
    const requests = Array.from({ length: 7 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i } }));
    requests[0] = requests[6] = { type: 'TEST_RECORD', payload: { i: 0 }, idempotencyKey: key } as (typeof requests)[number];
    const jobs = await t.jobs.enqueueMany(requests);
    expect(jobs[6].id).toBe(jobs[0].id);
    const ids = [...new Set(jobs.map((j) => j.id))];
    expect(ids).toHaveLength(6);
    expect(await storedIds(ids)).toEqual(ids);
    expect((await probe.statementsOf(ids)).map((s) => s.rows)).toEqual([5, 1]);
  });

  it('in the caller’s transaction every statement is part of it, and a rollback takes them all back', async () => {
    const dataSource = t.app.get<DataSource>(getDataSourceToken());
    let ids: string[] = [];
    let callerXid = '';
    await expect(
      dataSource.transaction(async (manager) => {
        callerXid = ((await manager.query('SELECT pg_current_xact_id()::text AS xid')) as Array<{ xid: string }>)[0].xid;
        const jobs = await t.jobs.enqueueMany(
          Array.from({ length: 7 }, (_, i) => ({ type: 'TEST_RECORD', payload: { i } })),
          { manager },
        );
        ids = jobs.map((j) => j.id);
        const statements = await probe.statementsOf(ids);
        // Not visible outside the transaction yet: the probe's log is written in it.
        expect(statements).toEqual([]);
        const inside = (await manager.query(
          `SELECT cardinality(job_ids) AS rows, xid::text AS xid FROM ${schema.schema}.test_insert_statements WHERE job_ids && $1::uuid[] ORDER BY n`,
          [ids],
        )) as Array<{ rows: number; xid: string }>;
        expect(inside).toEqual([
          { rows: 5, xid: callerXid },
          { rows: 2, xid: callerXid },
        ]);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(ids).toHaveLength(7);
    expect(await storedIds(ids)).toEqual([]);
  });
});
