import { Pool } from 'pg';
import { ClaimStrategyName, QueuesService } from '@conveyor/core';
import { countByStatus, invocationStats } from '../support/job-queries';
import { PgBouncer, pgbouncerUnavailable } from '../support/pgbouncer';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

const JOBS = 10_000;
const PROCESSES = 3;
const unavailable = pgbouncerUnavailable();
if (unavailable) console.warn(`pooler tests skipped: ${unavailable}`);

/**
 * Exactly-once through PgBouncer in transaction mode: three worker processes in pooler mode, every connection
 * but LISTEN through one PgBouncer (LISTEN on the direct URL), drain the queue for each claim strategy. Every job
 * must end COMPLETED with exactly one recorded handler invocation, first time, with no retry or rescue.
 */
(unavailable ? describe.skip : describe).each<ClaimStrategyName>(['skip-locked', 'optimistic'])(
  'exactly once through PgBouncer with %s',
  (strategy) => {
    const direct = process.env.CONVEYOR_TEST_DATABASE_URL!;
    let bouncer: PgBouncer;
    let schema: TestSchema;
    let recorder: Pool;
    let producer: TestApp;
    const workers: SpawnedWorker[] = [];

    beforeAll(async () => {
      bouncer = await PgBouncer.start(direct, { poolSize: 10 });
      schema = await createTestSchema(`pooler_once_${strategy.replace('-', '_')}`);
      recorder = new Pool({ connectionString: bouncer.url(), max: 2 });
      await recorder.query(createInvocationsTableSql(schema.schema));
      producer = await createTestApp({
        url: bouncer.url(),
        schema: schema.schema,
        providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
        engine: { runWorkers: false, pooler: 'transaction', listenUrl: direct },
        http: false,
      });
    });

    afterAll(async () => {
      for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
      await producer?.close();
      await recorder?.end();
      await schema?.drop();
      await bouncer?.stop();
    });

    it(`drains ${JOBS} jobs with ${PROCESSES} pooler-mode processes: every job completed once`, async () => {
      const queues = producer.app.get(QueuesService);
      await queues.setPaused('default', true);
      for (let i = 0; i < JOBS; i += 1000) {
        await producer.jobs.enqueueMany(Array.from({ length: 1000 }, (_, k) => ({ type: 'TEST_RECORD', payload: { n: i + k } })));
      }
      for (let p = 0; p < PROCESSES; p++) {
        const engine = {
          claimStrategy: strategy,
          concurrency: 8,
          workerId: `pooled-${p}`,
          pooler: 'transaction' as const,
          listenUrl: direct,
        };
        workers.push(spawnWorker({ url: bouncer.url(), schema: schema.schema, engine, appName: `pooled-${p}` }));
      }
      await Promise.all(workers.map((w) => w.ready));
      const started = Date.now();
      await queues.setPaused('default', false);
      await waitFor(async () => ((await countByStatus(producer.sql, schema.schema)).COMPLETED ?? 0) === JOBS, {
        timeoutMs: 45_000,
        intervalMs: 100,
        message: `all ${JOBS} jobs to complete`,
      });
      const seconds = (Date.now() - started) / 1000;

      expect(await countByStatus(producer.sql, schema.schema)).toEqual({ COMPLETED: JOBS });
      expect(await invocationStats(producer.sql, schema.schema)).toEqual({ total: JOBS, distinct: JOBS, maxPerJob: 1 });
      const { rows: audit } = await producer.sql.query<{ uninvoked: number; unclean: number }>(
        `SELECT (SELECT count(*)::int FROM ${producer.jobsTable} j
                WHERE NOT EXISTS (SELECT 1 FROM "${schema.schema}".test_invocations i WHERE i.job_id = j.id)) AS uninvoked,
              count(*) FILTER (WHERE attempts <> 1 OR snoozes <> 0 OR errors <> '[]'::jsonb)::int AS unclean
       FROM ${producer.jobsTable}`,
      );
      expect(audit[0]).toEqual({ uninvoked: 0, unclean: 0 });
      const { rows: perWorker } = await producer.sql.query<{ worker: string; n: number }>(
        `SELECT worker, count(*)::int AS n FROM "${schema.schema}".test_invocations GROUP BY worker ORDER BY worker`,
      );
      expect(perWorker.map((r) => r.worker)).toEqual(['pooled-0', 'pooled-1', 'pooled-2']);
      for (const w of workers) expect(w.output()).not.toMatch(/prepared statement|unsupported startup parameter/);
      console.log(
        `through PgBouncer (transaction mode), ${strategy}: ${JOBS} jobs by ${PROCESSES} processes x concurrency 8 drained in ` +
          `${seconds.toFixed(2)} s (${Math.round(JOBS / seconds)} jobs/s); per worker ${perWorker.map((r) => r.n).join(' / ')}`,
      );
      for (const w of workers) w.proc.kill('SIGTERM');
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual(Array(PROCESSES).fill(0));
    }, 90_000);
  },
);
