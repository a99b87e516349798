import { Pool } from 'pg';
import { ClaimStrategyName, QueuesService } from '@conveyor/core';
import { countByStatus, invocationStats } from '../support/job-queries';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

const JOBS = 10_000;
const PROCESSES = 3;

/**
 * Exactly-once under contention: 10,000 jobs drained by three separate worker processes (each its own
 * pool, concurrency 8), for each claim strategy. Every job must end COMPLETED with exactly one recorded
 * handler invocation — no duplicates, none missing — and first time, with no retry or lease rescue.
 */
describe.each<ClaimStrategyName>(['skip-locked', 'optimistic'])('exactly once with %s', (strategy) => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let recorder: Pool;
  let producer: TestApp;
  const workers: SpawnedWorker[] = [];

  beforeAll(async () => {
    schema = await createTestSchema(`once_${strategy.replace('-', '_')}`);
    recorder = new Pool({ connectionString: url, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    producer = await createTestApp({
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false },
      http: false,
    });
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    await producer?.close();
    await recorder?.end();
    await schema?.drop();
  });

  it(`drains ${JOBS} jobs with ${PROCESSES} processes: every job completed once`, async () => {
    // The queue is paused while jobs are inserted and the workers boot, so all three start together
    // (resuming notifies them) and the drain is timed without process start-up.
    const queues = producer.app.get(QueuesService);
    await queues.setPaused('default', true);
    for (let i = 0; i < JOBS; i += 1000) {
      await producer.jobs.enqueueMany(Array.from({ length: 1000 }, (_, k) => ({ type: 'TEST_RECORD', payload: { n: i + k } })));
    }
    for (let p = 0; p < PROCESSES; p++) {
      workers.push(
        spawnWorker({
          url,
          schema: schema.schema,
          engine: { claimStrategy: strategy, concurrency: 8, workerId: `once-${p}` },
          appName: `once-${p}`,
        }),
      );
    }
    await Promise.all(workers.map((w) => w.ready));
    const started = Date.now();
    await queues.setPaused('default', false);
    await waitFor(async () => ((await countByStatus(producer.sql, schema.schema)).COMPLETED ?? 0) === JOBS, {
      timeoutMs: 180_000,
      intervalMs: 100,
      message: `all ${JOBS} jobs to complete`,
    });
    const seconds = (Date.now() - started) / 1000;

    expect(await countByStatus(producer.sql, schema.schema)).toEqual({ COMPLETED: JOBS });
    expect(await invocationStats(producer.sql, schema.schema)).toEqual({ total: JOBS, distinct: JOBS, maxPerJob: 1 });
    // Nothing was missing: every job has its invocation, and none needed a second attempt or a rescue.
    const { rows: audit } = await producer.sql.query<{ uninvoked: number; unclean: number; window: number }>(
      `SELECT (SELECT count(*)::int FROM ${producer.jobsTable} j
                WHERE NOT EXISTS (SELECT 1 FROM "${schema.schema}".test_invocations i WHERE i.job_id = j.id)) AS uninvoked,
              count(*) FILTER (WHERE attempts <> 1 OR snoozes <> 0 OR errors <> '[]'::jsonb)::int AS unclean,
              extract(epoch FROM max(finished_at) - min(started_at))::float AS window
       FROM ${producer.jobsTable}`,
    );
    expect(audit[0]).toMatchObject({ uninvoked: 0, unclean: 0 });
    const { rows: perWorker } = await producer.sql.query<{ worker: string; n: number }>(
      `SELECT worker, count(*)::int AS n FROM "${schema.schema}".test_invocations GROUP BY worker ORDER BY worker`,
    );
    expect(perWorker.map((r) => r.worker)).toEqual(['once-0', 'once-1', 'once-2']);
    // The backlog is shared: no instance sits out while another takes the jobs (each ran at least a third of
    // an even share; with optimistic claims a worker that lost a race once used to rest until its next poll).
    for (const r of perWorker) expect(r.n).toBeGreaterThanOrEqual(JOBS / PROCESSES / 3);
    console.log(
      `${strategy}: ${JOBS} jobs by ${PROCESSES} processes x concurrency 8 drained in ${seconds.toFixed(2)} s ` +
        `(${Math.round(JOBS / seconds)} jobs/s; first claim to last completion ${audit[0].window.toFixed(2)} s); ` +
        `per worker ${perWorker.map((r) => r.n).join(' / ')}`,
    );
    for (const w of workers) w.proc.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual(Array(PROCESSES).fill(0));
  }, 240_000);
});
