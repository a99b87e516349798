import { Pool } from 'pg';
import { PgBouncer, pgbouncerUnavailable } from '../support/pgbouncer';
import { createInvocationsTableSql, invocationsTable } from '../support/recording-handler';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';

const unavailable = pgbouncerUnavailable();
if (unavailable) console.warn(`frozen pooler test skipped: ${unavailable}`);

/**
 * A PgBouncer in transaction mode that hangs (frozen) while a worker process runs a job through it. The worker's open
 * connection overruns its statement deadline; each connection it opens after that is accepted by the kernel and never
 * let in, so it runs into its connect timeout — the database being away, like any other connection failure: the
 * job's outcome waits in memory and is written whole once the pooler answers again.
 */
(unavailable ? describe.skip : describe)('a frozen PgBouncer under a working instance', () => {
  const direct = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let bouncer: PgBouncer;
  let schema: TestSchema;
  let sql: Pool;
  let worker: SpawnedWorker;

  beforeAll(async () => {
    bouncer = await PgBouncer.start(direct, { poolSize: 4 });
    schema = await createTestSchema('pooler_admin');
    sql = new Pool({ connectionString: direct, max: 2 });
    await sql.query(createInvocationsTableSql(schema.schema));
    worker = spawnWorker({
      url: bouncer.url(),
      // Invocations are counted past the pooler, which the test holds.
      recorderUrl: direct,
      schema: schema.schema,
      engine: { pooler: 'transaction', listenUrl: direct, pollIntervalMs: 100, workerId: 'pooled-admin' },
      appName: 'pooled-admin',
      connectTimeoutMs: 1000,
    });
    await worker.ready;
  });

  const invocationsOf = async (id: string): Promise<number> => {
    const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${invocationsTable(schema.schema)} WHERE job_id = $1`, [
      id,
    ]);
    return rows[0].n;
  };

  afterAll(async () => {
    if (worker && worker.proc.exitCode === null) worker.proc.kill('SIGKILL');
    await sql?.end();
    await schema?.drop();
    await bouncer?.stop();
  });

  it('frozen longer than the connect timeout, then thawed: the outcome waits and is stored whole; the job ran once', async () => {
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO "${schema.schema}".conveyor_jobs (type, payload) VALUES ('TEST_RECORD', $1) RETURNING id`,
      [JSON.stringify({ sleepMs: 1000, result: { delivered: true } })],
    );
    const id = rows[0].id;
    await waitFor(async () => (await invocationsOf(id)) === 1, { timeoutMs: 10_000, message: 'the job to start' });

    bouncer.freeze();
    // The handler finishes meanwhile. The outcome write on the open worker connection overruns its 5 s deadline;
    // each connection opened after that waits at its login for the 1 s connect timeout.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    bouncer.thaw();

    await waitFor(
      async () => {
        const { rows: job } = await sql.query<{ status: string }>(`SELECT status FROM "${schema.schema}".conveyor_jobs WHERE id = $1`, [
          id,
        ]);
        return job[0].status !== 'RUNNING';
      },
      { timeoutMs: 15_000, message: 'the job to end once the pooler answers again' },
    );
    const { rows: job } = await sql.query<{ status: string; result: unknown; last_error: string | null; attempts: number }>(
      `SELECT status, result, last_error, attempts FROM "${schema.schema}".conveyor_jobs WHERE id = $1`,
      [id],
    );
    expect(job[0]).toEqual({ status: 'COMPLETED', result: { delivered: true }, last_error: null, attempts: 1 });
    expect(await invocationsOf(id)).toBe(1);
    expect(worker.output()).not.toMatch(/Dropping the outcome|Could not store outcome/);
  }, 60_000);
});
