import { Pool } from 'pg';
import { WorkerConnection } from '@conveyor/core/storage/connections/worker-connection.service';
import { countByStatus } from '../support/job-queries';
import { PgBouncer, pgbouncerUnavailable } from '../support/pgbouncer';
import { createInvocationsTableSql, RECORDER_POOL, RecordingHandler } from '../support/recording-handler';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const JOBS = 50;
const unavailable = pgbouncerUnavailable();
if (unavailable) console.warn(`pooler session mode test skipped: ${unavailable}`);

/**
 * PgBouncer in session mode (`pool_mode = session`) keeps each client on one server connection, so the engine runs
 * behind it without a pooler mode (`pooler: 'none'`): named statements, pipelining, LISTEN through it. PgBouncer
 * refuses the startup parameter `options` in every mode, so the worker connection logs in without one and sets its
 * planner settings on its session.
 */
(unavailable ? describe.skip : describe)('behind PgBouncer in session mode, without a pooler mode', () => {
  const direct = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let bouncer: PgBouncer;
  let schema: TestSchema;
  let recorder: Pool;
  let t: TestApp;

  beforeAll(async () => {
    bouncer = await PgBouncer.start(direct, { poolSize: 20, settings: { pool_mode: 'session' } });
    schema = await createTestSchema('pooler_session_mode');
    recorder = new Pool({ connectionString: direct, max: 2 });
    await recorder.query(createInvocationsTableSql(schema.schema));
    t = await createTestApp({
      url: bouncer.url(),
      schema: schema.schema,
      providers: [{ provide: RECORDER_POOL, useValue: { pool: recorder, schema: schema.schema } }, RecordingHandler],
      http: false,
      appName: 'pooler-session-mode',
    });
  });

  afterAll(async () => {
    await t?.close();
    await recorder?.end();
    await schema?.drop();
    await bouncer?.stop();
  });

  it(`claims and completes ${JOBS} jobs, its worker connection planning claims with the claim planner settings`, async () => {
    await recorder.query(
      `INSERT INTO "${schema.schema}".conveyor_jobs (type, payload) SELECT 'TEST_RECORD', '{}'::jsonb FROM generate_series(1, $1)`,
      [JOBS],
    );
    await waitFor(async () => (await countByStatus(recorder, schema.schema)).COMPLETED === JOBS, {
      timeoutMs: 15_000,
      message: `all ${JOBS} jobs to complete through the session-mode pooler`,
    });
    const { rows } = await t.app
      .get(WorkerConnection)
      .runner.query<{ sort: string; plan: string }>(
        `SELECT current_setting('enable_sort') AS sort, current_setting('plan_cache_mode') AS plan`,
      );
    expect(rows[0]).toEqual({ sort: 'off', plan: 'force_generic_plan' });
  }, 30_000);
});
