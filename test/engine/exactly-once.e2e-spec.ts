import { Pool } from 'pg';
import { ClaimStrategyName } from '@conveyor/core';
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
 * handler invocation — no duplicates, none missing.
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
    for (let i = 0; i < JOBS; i += 1000) {
      await producer.jobs.enqueueMany(Array.from({ length: 1000 }, (_, k) => ({ type: 'TEST_RECORD', payload: { n: i + k } })));
    }
    const started = Date.now();
    for (let p = 0; p < PROCESSES; p++) {
      workers.push(
        spawnWorker({ url, schema: schema.schema, engine: { claimStrategy: strategy, concurrency: 8, workerId: `once-${p}` }, appName: `once-${p}` }),
      );
    }
    await Promise.all(workers.map((w) => w.ready));
    await waitFor(async () => ((await countByStatus(producer.sql, schema.schema)).COMPLETED ?? 0) === JOBS, {
      timeoutMs: 180_000,
      intervalMs: 200,
      message: `all ${JOBS} jobs to complete`,
    });
    const seconds = (Date.now() - started) / 1000;

    const counts = await countByStatus(producer.sql, schema.schema);
    expect(counts).toEqual({ COMPLETED: JOBS });
    const stats = await invocationStats(producer.sql, schema.schema);
    expect(stats).toEqual({ total: JOBS, distinct: JOBS, maxPerJob: 1 });
    const { rows } = await producer.sql.query<{ worker: string; n: number }>(
      `SELECT worker, count(*)::int AS n FROM "${schema.schema}".test_invocations GROUP BY worker ORDER BY worker`,
    );
    expect(rows).toHaveLength(PROCESSES);
    console.log(
      `${strategy}: ${JOBS} jobs by ${PROCESSES} processes in ${seconds.toFixed(1)} s (${Math.round(JOBS / seconds)} jobs/s, incl. start-up); per worker ${rows.map((r) => r.n).join(' / ')}`,
    );
    for (const w of workers) w.proc.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual(Array(PROCESSES).fill(0));
  }, 240_000);
});
