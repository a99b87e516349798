import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import request from 'supertest';
import { JobStatus } from '@conveyor/core';
import { countByStatus } from '../support/job-queries';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnService } from '../support/service-process';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

/** Graceful shutdown with real processes and SIGTERM: nothing is left RUNNING for the sweeper to find. */
describe('shutdown', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let sql: Pool;
  const workers: SpawnedWorker[] = [];

  const table = () => `"${schema.schema}".conveyor_jobs`;
  const insert = async (n: number, payload: object): Promise<string[]> => {
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO ${table()} (type, payload) SELECT 'TEST_RECORD', $1::jsonb FROM generate_series(1, $2) RETURNING id`,
      [JSON.stringify(payload), n],
    );
    return rows.map((r) => r.id);
  };
  const rows = async (ids: string[]) =>
    (await sql.query(`SELECT id, status, attempts, errors FROM ${table()} WHERE id = ANY($1::uuid[])`, [ids])).rows;
  const start = async ({ appName, ...engine }: { appName?: string } & Record<string, unknown>) => {
    const w = spawnWorker({ url, schema: schema.schema, engine: { pollIntervalMs: 100, ...engine }, appName });
    workers.push(w);
    await w.ready;
    return w;
  };

  /**
   * Starts a worker named `appName`, holds a lock on the jobs table while inserting three jobs, waits until the
   * worker's claim of them waits on that lock, runs `whileHeld`, then releases the lock. The worker runs no
   * maintenance round after its first, so the claim is the only statement it has waiting there.
   */
  const whileClaimWaitsOnLock = async (
    appName: string,
    whileHeld: (w: SpawnedWorker, workerBackend: string) => Promise<void>,
  ): Promise<{ w: SpawnedWorker; ids: string[] }> => {
    const w = await start({ shutdownGraceMs: 1_000, maintenanceIntervalMs: 600_000, appName });
    const workerBackend = `SELECT 1 FROM pg_stat_activity WHERE application_name = '${appName}:worker'`;
    const locker = await sql.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table()} IN ACCESS EXCLUSIVE MODE`);
      const ids = (
        await locker.query<{ id: string }>(
          `INSERT INTO ${table()} (type, payload) SELECT 'TEST_RECORD', '{}'::jsonb FROM generate_series(1, 3) RETURNING id`,
        )
      ).rows.map((r) => r.id);
      // The worker's next poll is a claim waiting on the lock: in flight, its jobs to be RUNNING under this worker's lease.
      await waitFor(
        async () =>
          (await sql.query(`${workerBackend} AND wait_event_type = 'Lock' AND query LIKE '%SET status = ''RUNNING''%'`)).rowCount === 1,
        { message: 'a claim waiting on the lock' },
      );
      await whileHeld(w, workerBackend);
      await locker.query('COMMIT');
      return { w, ids };
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
  };

  /** An app in this process running the recording handler, with a 5 s grace period; the caller ends `recorder`. */
  const startRecordingApp = async () => {
    const recorder = new Pool({ connectionString: url, max: 1 });
    const t = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { shutdownGraceMs: 5_000 },
    });
    return { t, recorder };
  };

  beforeAll(async () => {
    schema = await createTestSchema('shutdown');
    sql = new Pool({ connectionString: url, max: 2 });
    // The first worker creates the tables; make sure they exist before inserting directly.
    await start({});
    await sql.query(createInvocationsTableSql(schema.schema));
    workers[0].proc.kill('SIGTERM');
    await workers[0].exited;
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    await sql?.end();
    await schema?.drop();
  });

  it('lets running jobs finish within the grace period, then exits 0', async () => {
    const w = await start({ shutdownGraceMs: 10_000 });
    const ids = await insert(3, { sleepMs: 700 });
    await waitFor(async () => (await rows(ids)).every((r) => r.status === JobStatus.RUNNING));
    w.proc.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect((await rows(ids)).map((r) => r.status)).toEqual([JobStatus.COMPLETED, JobStatus.COMPLETED, JobStatus.COMPLETED]);
  });

  it('hands back jobs still running at the end of the grace period, without counting the attempt', async () => {
    const w = await start({ shutdownGraceMs: 300 });
    const ids = await insert(2, { sleepMs: 60_000 });
    const ignoring = await insert(1, { sleepMs: 60_000, ignoreSignal: true });
    const all = [...ids, ...ignoring];
    await waitFor(async () => (await rows(all)).every((r) => r.status === JobStatus.RUNNING));
    const started = Date.now();
    w.proc.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(w.output()).toContain('Handing back 3 running jobs after the shutdown grace period');
    for (const r of await rows(all)) {
      expect(r.status).toBe(JobStatus.PENDING);
      expect(r.attempts).toBe(0);
      expect(r.errors.map((e: { kind: string }) => e.kind)).toEqual(['handed-back']);
    }
    await sql.query(`UPDATE ${table()} SET status = 'CANCELLED' WHERE id = ANY($1::uuid[])`, [all]);
  });

  it('a second SIGTERM skips the rest of the grace period but still hands the jobs back', async () => {
    const w = await start({ shutdownGraceMs: 60_000 });
    const ids = await insert(2, { sleepMs: 60_000 });
    await waitFor(async () => (await rows(ids)).every((r) => r.status === JobStatus.RUNNING));
    const started = Date.now();
    w.proc.kill('SIGTERM');
    await w.printed('"event":"signal"');
    w.proc.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Its log says why the jobs were handed back before the grace period ended.
    expect(w.output()).toContain('Handing back 2 running jobs at once, as asked again to stop');
    expect((await rows(ids)).map((r) => r.status)).toEqual([JobStatus.PENDING, JobStatus.PENDING]);
    expect((await countByStatus(sql, schema.schema)).RUNNING ?? 0).toBe(0);
    await sql.query(`UPDATE ${table()} SET status = 'CANCELLED' WHERE id = ANY($1::uuid[])`, [ids]);
  });

  it('hands back the jobs of a claim still in flight when the signal came, once that claim returns', async () => {
    const { w, ids } = await whileClaimWaitsOnLock('shutdown-claim', async (w) => {
      w.proc.kill('SIGTERM');
      // A worker that does not wait for the claim has nothing left to do and exits; one that waits stays (the wait is
      // for the process's own decision, so it cannot be a poll for a condition in the database).
      await Promise.race([w.exited, new Promise((resolve) => setTimeout(resolve, 1_500))]);
    });
    expect(await w.exited).toBe(0);
    const after = await rows(ids);
    expect(after.map((r) => [r.status, r.attempts])).toEqual(ids.map(() => [JobStatus.PENDING, 0]));
    for (const r of after) expect(r.errors.map((e: { kind: string }) => e.kind)).toEqual(['handed-back']);
    await sql.query(`UPDATE ${table()} SET status = 'CANCELLED' WHERE id = ANY($1::uuid[])`, [ids]);
  });

  it('a claim still waiting past its deadline when the worker exits is rolled back by the server: its jobs stay PENDING', async () => {
    const { ids } = await whileClaimWaitsOnLock('shutdown-late-claim', async (w, workerBackend) => {
      w.proc.kill('SIGTERM');
      // The worker gives the claim up at its statement deadline, closes the connection and exits; the lock is still held.
      expect(await w.exited).toBe(0);
      await waitFor(async () => (await sql.query(workerBackend)).rowCount === 0, {
        message: "the server to end the abandoned claim's backend",
      });
    });
    const after = await rows(ids);
    expect(after.map((r) => [r.status, r.attempts, r.errors])).toEqual(ids.map(() => [JobStatus.PENDING, 0, []]));
    await sql.query(`UPDATE ${table()} SET status = 'CANCELLED' WHERE id = ANY($1::uuid[])`, [ids]);
  });

  it('a signal during start-up (migrations waiting for another instance) exits 0 without claiming a job', async () => {
    const locker = await sql.connect();
    let ids: string[] = [];
    const outbox = mkdtempSync(join(tmpdir(), 'conveyor-outbox-'));
    const service = spawnService({ env: { DATABASE_URL: url, DATABASE_SCHEMA: schema.schema, OUTBOX_DIR: outbox, LOG_LEVEL: 'log' } });
    try {
      // Another instance migrating: the service's start-up waits for the lock.
      await locker.query('BEGIN');
      await locker.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`conveyor-migrate:${schema.schema}`]);
      ids = (
        await locker.query<{ id: string }>(
          `INSERT INTO ${table()} (type, queue, payload)
           SELECT 'SEND_EMAIL', 'emails', '{"to":"a@example.com","subject":"s","body":"b"}'::jsonb FROM generate_series(1, 3) RETURNING id`,
        )
      ).rows.map((r) => r.id);
      await waitFor(
        async () =>
          (
            await sql.query(
              `SELECT 1 FROM pg_stat_activity
               WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%' AND pid <> $1`,
              [(await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid],
            )
          ).rowCount === 1,
        { timeoutMs: 30_000, message: "the service's migrations waiting for the lock" },
      );
      service.proc.kill('SIGTERM');
      // The stop is under way (nothing had started); then the other instance's migration ends and start-up goes on.
      await waitFor(() => service.output().includes('Worker stopped'), { message: 'the engine to stop' });
      await locker.query('COMMIT');
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      locker.release();
    }
    const exited = await Promise.race([service.exited, waitFor(() => false, { timeoutMs: 20_000 }).catch(() => 'still running')]);
    if (exited === 'still running') service.proc.kill('SIGKILL');
    expect(exited).toBe(0);
    expect((await rows(ids)).map((r) => [r.status, r.attempts])).toEqual(ids.map(() => [JobStatus.PENDING, 0]));
    await sql.query(`UPDATE ${table()} SET status = 'CANCELLED' WHERE id = ANY($1::uuid[])`, [ids]);
  });

  it('reports not-ready while draining', async () => {
    const { t, recorder } = await startRecordingApp();
    const server = t.app.getHttpServer();
    // Ready once the poller's first claim has returned (it starts with the app, unawaited).
    await waitFor(async () => (await request(server).get('/health/ready')).status === 200, { message: 'the app to report ready' });
    const job = await t.jobs.enqueue('TEST_RECORD', { sleepMs: 1500 });
    await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.RUNNING);
    const closing = t.close();
    await waitFor(async () => (await request(server).get('/health/ready')).status === 503, { message: 'readiness to go down' });
    expect((await request(server).get('/health/live')).status).toBe(200);
    await closing;
    await recorder.end();
    expect((await rows([job.id]))[0].status).toBe(JobStatus.COMPLETED);
  });

  it('app.close() called again while the first is stopping waits for it, so the running job is still written', async () => {
    const { t, recorder } = await startRecordingApp();
    const server = t.app.getHttpServer();
    const job = await t.jobs.enqueue('TEST_RECORD', { sleepMs: 800 });
    await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.RUNNING);
    const first = t.app.close();
    await waitFor(async () => (await request(server).get('/health/ready')).status === 503, {
      message: 'the first close to begin stopping',
    });
    const second = t.app.close();
    await Promise.all([first, second]);
    await recorder.end();
    const [row] = await rows([job.id]);
    expect([row.status, row.attempts]).toEqual([JobStatus.COMPLETED, 1]);
  });
});
