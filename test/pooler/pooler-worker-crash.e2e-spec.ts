import { Pool } from 'pg';
import { countByStatus, invocationStats } from '../support/job-queries';
import { PgBouncer, pgbouncerUnavailable } from '../support/pgbouncer';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

const JOBS = 5_000;
const unavailable = pgbouncerUnavailable();
if (unavailable) console.warn(`pooler crash test skipped: ${unavailable}`);

/**
 * A worker SIGKILLed mid-drain behind PgBouncer in transaction mode: the server connections it was using stay with
 * PgBouncer (a statement in flight is rolled back when its client goes), its leases run out, the leader rescues
 * its jobs, and every job completes; only jobs the dead worker held may run twice.
 */
(unavailable ? describe.skip : describe)('worker crash through PgBouncer', () => {
  const direct = process.env.CONVEYOR_TEST_DATABASE_URL!;
  const ENGINE = {
    leaseMs: 2000,
    heartbeatIntervalMs: 500,
    maintenanceIntervalMs: 250,
    pollIntervalMs: 100,
    concurrency: 8,
    pooler: 'transaction' as const,
    listenUrl: direct,
  };
  let bouncer: PgBouncer;
  let schema: TestSchema;
  let recorder: Pool;
  let control: TestApp;
  const workers: SpawnedWorker[] = [];

  const start = async (name: string) => {
    const w = spawnWorker({ url: bouncer.url(), schema: schema.schema, engine: { ...ENGINE, workerId: name }, appName: name });
    workers.push(w);
    await w.ready;
    return w;
  };
  const insert = (n: number, payload: object) =>
    control.sql.query(`INSERT INTO ${control.jobsTable} (type, payload) SELECT 'TEST_RECORD', $1::jsonb FROM generate_series(1, $2)`, [
      JSON.stringify(payload),
      n,
    ]);
  const heldBy = async (worker: string): Promise<number> => {
    const { rows } = await control.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${control.jobsTable} WHERE status = 'RUNNING' AND locked_by = $1`,
      [worker],
    );
    return rows[0].n;
  };

  beforeAll(async () => {
    bouncer = await PgBouncer.start(direct, { poolSize: 10 });
    schema = await createTestSchema('pooler_crash');
    recorder = new Pool({ connectionString: bouncer.url(), max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    control = await createTestApp({
      url: bouncer.url(),
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      engine: { runWorkers: false, maintenanceIntervalMs: 250, pooler: 'transaction', listenUrl: direct },
      http: false,
      appName: 'pooler-crash-control',
    });
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null) w.proc.kill('SIGKILL');
    await control?.close();
    await recorder?.end();
    await schema?.drop();
    await bouncer?.stop();
  });

  it(`SIGKILL of one of three workers mid-drain: all ${JOBS} jobs complete, duplicates bounded by what it held`, async () => {
    await insert(JOBS - 500, {});
    await insert(500, { sleepMs: 200 });
    const [victim, ...survivors] = [await start('pooled-victim'), await start('pooled-b'), await start('pooled-c')];
    await waitFor(async () => ((await countByStatus(control.sql, schema.schema)).COMPLETED ?? 0) >= JOBS * 0.3, { timeoutMs: 30_000 });

    victim.proc.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    const held = await heldBy('pooled-victim');
    await waitFor(async () => (await heldBy('pooled-victim')) === 0, {
      timeoutMs: 15_000,
      message: "the dead worker's jobs to be rescued",
    });
    const rescueMs = Date.now() - killedAt;
    await waitFor(async () => ((await countByStatus(control.sql, schema.schema)).COMPLETED ?? 0) === JOBS, {
      timeoutMs: 30_000,
      message: `all ${JOBS} jobs to complete`,
    });
    const drainedMs = Date.now() - killedAt;

    const stats = await invocationStats(control.sql, schema.schema);
    expect(stats.distinct).toBe(JOBS);
    const duplicates = stats.total - stats.distinct;
    expect(duplicates).toBeLessThanOrEqual(held);
    expect(stats.maxPerJob).toBeLessThanOrEqual(2);
    // The jobs that ran twice are the victim's: their first attempt's invocation names it.
    const { rows: twice } = await control.sql.query<{ victim: boolean }>(
      `SELECT bool_or(worker = 'pooled-victim') AS victim FROM "${schema.schema}".test_invocations GROUP BY job_id HAVING count(*) > 1`,
    );
    expect(twice.every((r) => r.victim)).toBe(true);
    for (const w of survivors) expect(w.output()).not.toMatch(/prepared statement|unsupported startup parameter/);
    console.log(
      `SIGKILL through PgBouncer: held ${held}, duplicates ${duplicates}, rescued within ${rescueMs} ms, drained ${drainedMs} ms after the kill`,
    );
    for (const w of survivors) w.proc.kill('SIGTERM');
    expect(await Promise.all(survivors.map((w) => w.exited))).toEqual([0, 0]);
  }, 60_000);
});
