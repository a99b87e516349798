import { Pool } from 'pg';
import { CLAIM_STRATEGY, ClaimStrategy, ClaimStrategyName, Job, JobStatus, QueuesService, WorkerPool } from '@conveyor/core';
import { Completer } from '../../libs/conveyor/src/worker/completer.service';
import { completedRow } from '../../libs/conveyor/src/worker/outcome-rows';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler, RecordPayload } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * The claim contract, run against each strategy: order, scheduling, pause and filters, exclusivity,
 * retries and backoff, DEAD after the last attempt, the control errors, timeouts, and fencing of a
 * stale completion. Both strategies must pass the same suite unchanged.
 */
describe.each<ClaimStrategyName>(['skip-locked', 'optimistic'])('claim conformance: %s', (strategy) => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let claimSchema: TestSchema;
  let runSchema: TestSchema;
  let recorder: Pool;
  let claimer: TestApp;
  let runner: TestApp;
  let strategyUnderTest: ClaimStrategy;
  const filter = (limit: number, more: Partial<{ excludedQueues: string[]; types: string[] }> = {}) => ({
    types: ['TEST_RECORD'],
    excludedQueues: [],
    limit,
    ...more,
  });

  const handlers = (schema: string) => [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema } }, RecordingHandler];
  const insert = async (rows: { priority?: number; runAtOffsetMs?: number; queue?: string; type?: string }[]): Promise<string[]> => {
    const ids: string[] = [];
    for (const r of rows) {
      const { rows: out } = await claimer.sql.query<{ id: string }>(
        `INSERT INTO ${claimer.jobsTable} (type, queue, priority, run_at, status)
         VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond', CASE WHEN $4 > 0 THEN 'SCHEDULED' ELSE 'PENDING' END)
         RETURNING id`,
        [r.type ?? 'TEST_RECORD', r.queue ?? 'default', r.priority ?? 0, r.runAtOffsetMs ?? 0],
      );
      ids.push(out[0].id);
    }
    return ids;
  };
  const clearClaimTable = () => claimer.sql.query(`TRUNCATE ${claimer.jobsTable}; DELETE FROM ${claimer.db.queuesTable}`);
  const run = async (payload: RecordPayload, opts: { maxAttempts?: number } = {}) => runner.jobs.enqueue('TEST_RECORD', payload, opts);
  const settled = (id: string, status: JobStatus, timeoutMs = 10_000) =>
    waitFor(async () => {
      const j = await runner.jobs.get(id);
      return j.status === status ? j : null;
    }, { timeoutMs, message: `job ${id} to be ${status}` });

  beforeAll(async () => {
    const tag = strategy.replace('-', '_');
    claimSchema = await createTestSchema(`conf_claim_${tag}`);
    runSchema = await createTestSchema(`conf_run_${tag}`);
    recorder = new Pool({ connectionString: url, max: 2 });
    await recorder.query(createInvocationsTableSql(runSchema.schema));
    claimer = await createTestApp({
      schema: claimSchema.schema,
      providers: handlers(claimSchema.schema),
      engine: { claimStrategy: strategy, runWorkers: false },
      http: false,
    });
    runner = await createTestApp({
      schema: runSchema.schema,
      providers: handlers(runSchema.schema),
      engine: { claimStrategy: strategy, concurrency: 4, defaultTimeoutMs: 400 },
      http: false,
    });
    strategyUnderTest = claimer.app.get<ClaimStrategy>(CLAIM_STRATEGY);
  });

  afterAll(async () => {
    await runner?.close();
    await claimer?.close();
    await recorder?.end();
    await runSchema?.drop();
    await claimSchema?.drop();
  });

  it('is the configured strategy', () => {
    expect(strategyUnderTest.name).toBe(strategy);
  });

  it('claims due jobs by priority, then run_at, and marks them RUNNING under a fresh lease', async () => {
    await clearClaimTable();
    const [p5old, p0late, p0early, pMinus, p5older] = await insert([
      { priority: 5, runAtOffsetMs: -10_000 },
      { priority: 0, runAtOffsetMs: -1_000 },
      { priority: 0, runAtOffsetMs: -5_000 },
      { priority: -1, runAtOffsetMs: -2_000 },
      { priority: 5, runAtOffsetMs: -20_000 },
    ]);
    const first = await strategyUnderTest.claim(filter(2), 'conformance', 30_000);
    const second = await strategyUnderTest.claim(filter(10), 'conformance', 30_000);
    expect([...first, ...second].map((j) => j.id)).toEqual([pMinus, p0early, p0late, p5older, p5old]);
    for (const j of [...first, ...second]) {
      expect(j.status).toBe(JobStatus.RUNNING);
      expect(j.attempts).toBe(1);
      expect(j.lockedBy).toBe('conformance');
      expect(j.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 20_000);
      expect(j.leaseToken).toMatch(/^[0-9a-f-]{36}$/);
      expect(j.version).toBe(2);
    }
    expect(new Set([...first, ...second].map((j) => j.leaseToken)).size).toBe(5);
    expect(await strategyUnderTest.claim(filter(10), 'conformance', 30_000)).toEqual([]);
  });

  it('does not claim a scheduled job before its run_at, and claims it once due', async () => {
    await clearClaimTable();
    const [id] = await insert([{ runAtOffsetMs: 600 }]);
    const { rows } = await claimer.sql.query(`SELECT run_at FROM ${claimer.jobsTable} WHERE id = $1`, [id]);
    expect(await strategyUnderTest.claim(filter(10), 'conformance', 30_000)).toEqual([]);
    const claimed = await waitFor(async () => {
      const jobs = await strategyUnderTest.claim(filter(10), 'conformance', 30_000);
      return jobs.length > 0 ? jobs : null;
    }, { intervalMs: 20 });
    expect(claimed.map((j) => j.id)).toEqual([id]);
    const { rows: now } = await claimer.sql.query(`SELECT started_at >= $1::timestamptz AS on_time FROM ${claimer.jobsTable} WHERE id = $2`, [rows[0].run_at, id]);
    expect(now[0].on_time).toBe(true);
  });

  it('skips paused queues, excluded queues and types it was not asked for', async () => {
    await clearClaimTable();
    const [inPaused, inExcluded, otherType, ok] = await insert([
      { queue: 'paused-q' },
      { queue: 'excluded-q' },
      { type: 'SOMETHING_ELSE' },
      { queue: 'open-q' },
    ]);
    await claimer.app.get(QueuesService).setPaused('paused-q', true);
    const jobs = await strategyUnderTest.claim(filter(10, { excludedQueues: ['excluded-q'] }), 'conformance', 30_000);
    expect(jobs.map((j) => j.id)).toEqual([ok]);
    const { rows } = await claimer.sql.query(`SELECT id FROM ${claimer.jobsTable} WHERE status = 'PENDING' ORDER BY id`);
    expect(rows.map((r) => r.id).sort()).toEqual([inPaused, inExcluded, otherType].sort());
  });

  it('never hands one job to two concurrent claimers', async () => {
    await clearClaimTable();
    await claimer.sql.query(
      `INSERT INTO ${claimer.jobsTable} (type, status) SELECT 'TEST_RECORD', 'PENDING' FROM generate_series(1, 300)`,
    );
    const batches = await Promise.all(Array.from({ length: 24 }, (_, i) => strategyUnderTest.claim(filter(15), `claimer-${i}`, 30_000)));
    const ids = batches.flat().map((j: Job) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    const { rows } = await claimer.sql.query(`SELECT count(*)::int AS n FROM ${claimer.jobsTable} WHERE status = 'RUNNING'`);
    expect(rows[0].n).toBe(ids.length);
    // Everything claimed is RUNNING exactly once; what is left is still claimable.
    const rest = await strategyUnderTest.claim(filter(300), 'sweeper', 30_000);
    expect(ids.length + rest.length).toBe(300);
  });

  it('retries a failed attempt after its backoff, with the failure in the history', async () => {
    const job = await run({ failTimes: 1 });
    // Observing the short RETRYING window is best effort; the history below is the proof.
    const retrying = await settled(job.id, JobStatus.RETRYING, 2_000).catch(() => null);
    const done = await settled(job.id, JobStatus.COMPLETED);
    expect(done.attempts).toBe(2);
    expect(done.errors).toHaveLength(1);
    expect(done.errors[0]).toMatchObject({ attempt: 1, kind: 'failed', error: 'Error: attempt 1 failed' });
    expect(done.lastError).toBe('Error: attempt 1 failed');
    if (retrying) expect(retrying.runAt.getTime()).toBeGreaterThanOrEqual(retrying.updatedAt.getTime() + 45);
  });

  it('is DEAD after max attempts, with one history entry per attempt', async () => {
    const job = await run({ alwaysFail: true }, { maxAttempts: 3 });
    const dead = await settled(job.id, JobStatus.DEAD);
    expect(dead.attempts).toBe(3);
    expect(dead.errors.map((e) => [e.attempt, e.kind])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    expect(dead.finishedAt).not.toBeNull();
  });

  it('RetryLaterError runs the job again at the time asked, without using an attempt', async () => {
    const job = await run({ snoozeMs: 300, snoozeTimes: 1 }, { maxAttempts: 1 });
    const done = await settled(job.id, JobStatus.COMPLETED);
    expect(done.attempts).toBe(1);
    expect(done.snoozes).toBe(1);
    expect(done.errors.map((e) => e.kind)).toEqual(['retry-later']);
    const { rows } = await runner.sql.query<{ gap: number }>(
      `SELECT extract(epoch FROM max(at) - min(at)) * 1000 AS gap FROM "${runSchema.schema}".test_invocations WHERE job_id = $1`,
      [job.id],
    );
    expect(Number(rows[0].gap)).toBeGreaterThanOrEqual(290);
  });

  it('PermanentJobError is DEAD after one attempt; CancelJobError is CANCELLED', async () => {
    const permanent = await run({ permanent: true }, { maxAttempts: 5 });
    const dead = await settled(permanent.id, JobStatus.DEAD);
    expect(dead.attempts).toBe(1);
    expect(dead.errors.map((e) => e.kind)).toEqual(['permanent']);
    const cancelled = await settled((await run({ cancel: true })).id, JobStatus.CANCELLED);
    expect(cancelled.attempts).toBe(1);
    expect(cancelled.errors.map((e) => e.kind)).toEqual(['cancelled']);
  });

  it('fails an attempt that outlives its timeout and frees the slot even if the handler ignores its signal', async () => {
    const job = await run({ sleepMs: 60_000, ignoreSignal: true }, { maxAttempts: 1 });
    const dead = await settled(job.id, JobStatus.DEAD);
    expect(dead.errors.map((e) => e.kind)).toEqual(['timeout']);
    expect(dead.lastError).toMatch(/timed out after 400 ms/);
    expect(runner.app.get(WorkerPool).stats().running).toBe(0);
    const next = await run({});
    await settled(next.id, JobStatus.COMPLETED);
  });

  it('refuses a completion from a worker whose claim was lost', async () => {
    await clearClaimTable();
    const [id] = await insert([{}]);
    const [job] = await strategyUnderTest.claim(filter(1), 'slow-worker', 30_000);
    expect(job.id).toBe(id);
    // The lease expired and the sweeper handed the job on: a new token, another worker.
    await claimer.sql.query(
      `UPDATE ${claimer.jobsTable} SET status = 'RUNNING', lease_token = gen_random_uuid(), locked_by = 'new-worker', attempts = 2 WHERE id = $1`,
      [id],
    );
    const before = (await claimer.sql.query(`SELECT * FROM ${claimer.jobsTable} WHERE id = $1`, [id])).rows[0];
    const written = await new Promise<boolean>((resolve) => claimer.app.get(Completer).add(completedRow(job, { late: true }), resolve));
    expect(written).toBe(false);
    const after = (await claimer.sql.query(`SELECT * FROM ${claimer.jobsTable} WHERE id = $1`, [id])).rows[0];
    expect(after).toEqual(before);
  });
});
