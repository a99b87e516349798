import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { conveyorMigrationScript, IdempotencyConflictError, JobStatus, JobValidationError } from '@conveyor/core';
import { Pool } from 'pg';
import request from 'supertest';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { TEST_DATABASE_URL_ENV } from '../support/test-database-env';
import { STATEMENT_DEADLINE_MS } from '@conveyor/core/storage/connections/sql-runner.interface';
import { waitFor } from '../support/wait-for';

/** A producer enqueues inside its own TypeORM transaction: the job exists only if that transaction commits. */
describe('enqueue in the caller’s transaction', () => {
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;
  let dataSource: DataSource;

  beforeAll(async () => {
    schema = await createTestSchema('txenqueue');
    recorder = new Pool({ connectionString: process.env.CONVEYOR_TEST_DATABASE_URL, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
    });
    dataSource = t.app.get<DataSource>(getDataSourceToken());
    await dataSource.query(`CREATE TABLE "${schema.schema}".orders (id serial PRIMARY KEY, item text NOT NULL)`);
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
  });

  const submittedOf = async (queue: string) => {
    const res = await request(t.app.getHttpServer()).get('/metrics').expect(200);
    return sampleValue(parsePrometheusText(res.text), 'conveyor_jobs_submitted_total', { queue, type: 'TEST_RECORD' }) ?? 0;
  };

  it('counts as submitted (conveyor_jobs_submitted_total) only the jobs of transactions and savepoints that commit', async () => {
    const queue = 'txcounted';
    const submitted = () => submittedOf(queue);
    const later = { queue, delayMs: 3_600_000 };
    const before = await submitted();
    await dataSource.transaction((manager) => t.jobs.enqueue('TEST_RECORD', {}, { ...later, manager }));
    await dataSource
      .transaction(async (manager) => {
        await t.jobs.enqueue('TEST_RECORD', {}, { ...later, manager });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await dataSource.transaction(async (manager) => {
      await t.jobs.enqueueMany(
        [
          { type: 'TEST_RECORD', payload: {}, ...later },
          { type: 'TEST_RECORD', payload: {}, ...later },
        ],
        { manager },
      );
      // A savepoint that rolls back takes its job with it; one released keeps its job for the commit, whatever its
      // sibling savepoints do after it.
      const rolledBack = () =>
        manager
          .transaction(async (inner) => {
            await t.jobs.enqueue('TEST_RECORD', {}, { ...later, manager: inner });
            throw new Error('roll back to the savepoint');
          })
          .catch(() => undefined);
      await rolledBack();
      await manager.transaction((inner) => t.jobs.enqueue('TEST_RECORD', {}, { ...later, manager: inner }));
      await rolledBack();
    });
    const { rows } = await recorder.query(`SELECT count(*)::int AS n FROM "${schema.schema}".conveyor_jobs WHERE queue = $1`, [queue]);
    expect(rows[0].n).toBe(4);
    expect((await submitted()) - before).toBe(4);
  });

  it('a committed transaction leaves the order and its job, and the job runs', async () => {
    const job = await dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO "${schema.schema}".orders (item) VALUES ('book')`);
      return t.jobs.enqueue('TEST_RECORD', { result: 'shipped' }, { manager });
    });
    await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.COMPLETED, { message: 'the job to run after commit' });
  });

  it('a rolled-back transaction leaves neither', async () => {
    let jobId = '';
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query(`INSERT INTO "${schema.schema}".orders (item) VALUES ('lamp')`);
        const job = await t.jobs.enqueue('TEST_RECORD', {}, { manager });
        jobId = job.id;
        // Inside the transaction the job is visible; outside it is not yet.
        const { rows } = await t.sql.query(`SELECT 1 FROM ${t.jobsTable} WHERE id = $1`, [jobId]);
        expect(rows).toHaveLength(0);
        throw new Error('payment declined');
      }),
    ).rejects.toThrow('payment declined');
    const { rows } = await t.sql.query(`SELECT 1 FROM ${t.jobsTable} WHERE id = $1`, [jobId]);
    expect(rows).toHaveLength(0);
    const orders = await t.sql.query(`SELECT item FROM "${schema.schema}".orders WHERE item = 'lamp'`);
    expect(orders.rows).toHaveLength(0);
  });

  it('enqueueMany joins the transaction too', async () => {
    await expect(
      dataSource.transaction(async (manager) => {
        await t.jobs.enqueueMany(
          [
            { type: 'TEST_RECORD', payload: { a: 1 } },
            { type: 'TEST_RECORD', payload: { a: 2 } },
          ],
          { manager },
        );
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    const { rows } = await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE payload->>'a' IS NOT NULL`);
    expect(rows[0].n).toBe(0);
  });

  it('a manager kept past its transaction is refused, and its job is in no other transaction', async () => {
    let kept: EntityManager | undefined;
    await dataSource.transaction(async (manager) => {
      kept = manager;
    });
    // Its connection is back in the pool: here, most likely in this other caller's transaction, which rolls back.
    const other = dataSource.createQueryRunner();
    await other.startTransaction();
    try {
      await expect(t.jobs.enqueue('TEST_RECORD', { kept: 'late' }, { manager: kept })).rejects.toBeInstanceOf(
        QueryRunnerAlreadyReleasedError,
      );
      await expect(t.jobs.enqueueMany([{ type: 'TEST_RECORD', payload: { kept: 'late' } }], { manager: kept })).rejects.toBeInstanceOf(
        QueryRunnerAlreadyReleasedError,
      );
    } finally {
      await other.rollbackTransaction();
      await other.release();
    }
    const { rows } = await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE payload->>'kept' = 'late'`);
    expect(rows[0].n).toBe(0);
  });

  it('a key taken inside the transaction is answered without failing it: the holder, or a typed conflict', async () => {
    const holder = await t.jobs.enqueue('TEST_RECORD', { key: 'first' }, { idempotencyKey: 'tx-key', delayMs: 60_000 });
    const answers = await dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO "${schema.schema}".orders (item) VALUES ('before-conflict')`);
      const same = await t.jobs.enqueue('TEST_RECORD', { key: 'first' }, { manager, idempotencyKey: 'tx-key', delayMs: 60_000 });
      const different = t.jobs.enqueue('TEST_RECORD', { key: 'second' }, { manager, idempotencyKey: 'tx-key' });
      await expect(different).rejects.toBeInstanceOf(IdempotencyConflictError);
      await manager.query(`INSERT INTO "${schema.schema}".orders (item) VALUES ('after-conflict')`);
      return same.id;
    });
    expect(answers).toBe(holder.id);
    const orders = await t.sql.query(`SELECT item FROM "${schema.schema}".orders WHERE item LIKE '%-conflict' ORDER BY item`);
    expect(orders.rows.map((r: { item: string }) => r.item)).toEqual(['after-conflict', 'before-conflict']);
    const { rows } = await t.sql.query(`SELECT id FROM ${t.jobsTable} WHERE idempotency_key = 'tx-key'`);
    expect(rows).toEqual([{ id: holder.id }]);
  });

  it('a key held by an open transaction holds up keyed submissions, not keyless ones; one of that key gets the committed job', async () => {
    const caller = dataSource.createQueryRunner();
    await caller.startTransaction();
    try {
      const held = await t.jobs.enqueue('TEST_RECORD', {}, { manager: caller.manager, idempotencyKey: 'held-open', delayMs: 60_000 });
      // The same key outside the transaction waits for it to end; a submission without keys does not wait with it.
      const same = t.jobs.enqueue('TEST_RECORD', {}, { idempotencyKey: 'held-open', delayMs: 60_000 });
      const started = Date.now();
      const unrelated = await t.jobs.enqueue('TEST_RECORD', { unrelated: true }, { delayMs: 60_000 });
      expect(Date.now() - started).toBeLessThan(STATEMENT_DEADLINE_MS / 2);
      expect(caller.isTransactionActive).toBe(true);
      await caller.commitTransaction();
      expect((await same).id).toBe(held.id);
      expect((await t.jobs.get(unrelated.id)).status).toBe(JobStatus.SCHEDULED);
    } finally {
      if (caller.isTransactionActive) await caller.rollbackTransaction();
      await caller.release();
    }
  });

  it('a delay counts from the enqueue, not from the start of the caller’s transaction', async () => {
    const late = await dataSource.transaction(async (manager) => {
      // The transaction has been open for a while (its now() is behind) when the job is enqueued.
      const [{ before }] = await manager.query(`SELECT pg_sleep(0.2), clock_timestamp()::text AS before`);
      const later = { type: 'TEST_RECORD', payload: {}, delayMs: 60_000 };
      const jobs = [
        await t.jobs.enqueue('TEST_RECORD', {}, { manager, delayMs: 60_000 }),
        ...(await t.jobs.enqueueMany([later, later], { manager })),
      ];
      return manager.query(
        `SELECT id, run_at >= $1::timestamptz + interval '60 seconds' AS late_enough FROM ${t.jobsTable} WHERE id = ANY($2)`,
        [before, jobs.map((j) => j.id)],
      );
    });
    expect(late.map((r: { late_enough: boolean }) => r.late_enough)).toEqual([true, true, true]);
  });

  it('a manager of another DataSource on the same database enqueues in its transaction, counted only if it commits', async () => {
    const queue = 'txotherds';
    const hostSchema = await createTestSchema('txenqueue_host');
    const host = new DataSource({ type: 'postgres', url: process.env[TEST_DATABASE_URL_ENV], schema: hostSchema.schema });
    await host.initialize();
    try {
      const later = { queue, delayMs: 3_600_000 };
      const before = await submittedOf(queue);
      await host
        .transaction(async (manager) => {
          await t.jobs.enqueue('TEST_RECORD', {}, { ...later, manager });
          throw new Error('roll back');
        })
        .catch(() => undefined);
      await host.transaction((manager) => t.jobs.enqueueMany([{ type: 'TEST_RECORD', payload: {}, ...later }], { manager }));
      const { rows } = await t.sql.query(`SELECT count(*)::int AS n FROM ${t.jobsTable} WHERE queue = $1`, [queue]);
      expect(rows[0].n).toBe(1);
      expect((await submittedOf(queue)) - before).toBe(1);
    } finally {
      await host.destroy();
      await hostSchema.drop();
    }
  });

  it('a manager of another DataSource whose sessions write dates in another style answers the times it stored', async () => {
    // Its role, database or URL may set any DateStyle: the engine sets its own sessions' only.
    const url = new URL(process.env[TEST_DATABASE_URL_ENV]!);
    url.searchParams.set('options', '-c DateStyle=SQL,DMY -c TimeZone=Asia/Kathmandu');
    const host = new DataSource({ type: 'postgres', url: url.toString() });
    await host.initialize();
    try {
      const { job, styles } = await host.transaction(async (manager) => {
        const job = await t.jobs.enqueue('TEST_RECORD', {}, { manager, delayMs: 60_000 });
        const [more] = await t.jobs.enqueueMany([{ type: 'TEST_RECORD', payload: {}, delayMs: 60_000 }], { manager });
        const [{ style }] = await manager.query(`SELECT current_setting('DateStyle') AS style`);
        return { job: [job, more], styles: style as string };
      });
      const { rows } = await t.sql.query<{ id: string; created: string; run: string }>(
        `SELECT id, floor(extract(epoch FROM created_at) * 1000)::bigint::text AS created,
                floor(extract(epoch FROM run_at) * 1000)::bigint::text AS run
         FROM ${t.jobsTable} WHERE id = ANY($1) ORDER BY id`,
        [job.map((j) => j.id)],
      );
      const answered = [...job].sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(answered.map((j) => [j.id, j.createdAt?.getTime(), j.runAt?.getTime()])).toEqual(
        rows.map((r) => [r.id, Number(r.created), Number(r.run)]),
      );
      // The caller's own statements after the enqueue read the style they had before it.
      expect(styles).toBe('SQL, DMY');
    } finally {
      await host.destroy();
    }
  });

  it('a manager of a DataSource on another database is refused, and stores nothing there', async () => {
    // Another database with Conveyor's tables under the same schema name: statements naming the schema would land there.
    const database = `conveyor_t_txother_${randomBytes(4).toString('hex')}`;
    const admin = new Pool({ connectionString: process.env[TEST_DATABASE_URL_ENV], max: 1 });
    const url = new URL(process.env[TEST_DATABASE_URL_ENV]!);
    url.pathname = `/${database}`;
    await admin.query(`CREATE DATABASE ${database}`);
    const elsewhere = new DataSource({ type: 'postgres', url: url.toString(), schema: schema.schema });
    try {
      await elsewhere.initialize();
      await elsewhere.query(`CREATE SCHEMA "${schema.schema}"`);
      await elsewhere.query(conveyorMigrationScript({ schema: schema.schema }));
      const refusal = elsewhere.transaction((manager) => t.jobs.enqueue('TEST_RECORD', { elsewhere: true }, { manager }));
      await expect(refusal).rejects.toBeInstanceOf(JobValidationError);
      await expect(refusal).rejects.toMatchObject({ details: [{ field: 'manager' }] });
      await expect(
        elsewhere.transaction((manager) => t.jobs.enqueueMany([{ type: 'TEST_RECORD', payload: { elsewhere: true } }], { manager })),
      ).rejects.toBeInstanceOf(JobValidationError);
      const there = await elsewhere.query(`SELECT count(*)::int AS n FROM "${schema.schema}".conveyor_jobs`);
      expect(there[0].n).toBe(0);
    } finally {
      if (elsewhere.isInitialized) await elsewhere.destroy();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  });
});
