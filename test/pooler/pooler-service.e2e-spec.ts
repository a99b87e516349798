import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { PgBouncer, pgbouncerUnavailable } from '../support/pgbouncer';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const JOBS = 100;
const unavailable = pgbouncerUnavailable();
if (unavailable) console.warn(`pooler service test skipped: ${unavailable}`);

/**
 * The service as it is deployed on managed PostgreSQL: DATABASE_URL through PgBouncer in transaction mode,
 * DATABASE_POOLER=transaction, and LISTEN_DATABASE_URL straight to the server. Jobs submitted over REST complete;
 * a job another producer inserts is run at once although the fallback poll is a minute away, so the service
 * LISTENs on the direct URL.
 */
(unavailable ? describe.skip : describe)('the service behind PgBouncer', () => {
  const direct = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let bouncer: PgBouncer;
  let schema: TestSchema;
  let service: ServiceProcess;
  let sql: Pool;
  let outbox: string;

  beforeAll(async () => {
    bouncer = await PgBouncer.start(direct, { poolSize: 4 });
    schema = await createTestSchema('pooler_service');
    sql = new Pool({ connectionString: direct, max: 2 });
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-pooler-outbox-'));
    service = await startServiceProcess({
      env: {
        DATABASE_URL: bouncer.url(),
        DATABASE_SCHEMA: schema.schema,
        DATABASE_POOLER: 'transaction',
        LISTEN_DATABASE_URL: direct,
        POLL_INTERVAL_MS: '60000',
        OUTBOX_DIR: outbox,
        LOG_LEVEL: 'log',
      },
    });
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
    await sql?.end();
    await schema?.drop();
    await bouncer?.stop();
    if (outbox) rmSync(outbox, { recursive: true, force: true });
  });

  const statusOf = async (id: string): Promise<string> => {
    const res = await fetch(`${service.baseUrl}/jobs/${id}`);
    return ((await res.json()) as { status: string }).status;
  };

  it(`accepts ${JOBS} jobs over REST and completes every one`, async () => {
    const submit = async (n: number): Promise<string> => {
      const res = await fetch(`${service.baseUrl}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': `pooled-${n}` },
        body: JSON.stringify({ type: 'SEND_EMAIL', payload: { to: 'ops@example.test', subject: `pooled ${n}`, text: 'hello' } }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const ids = await Promise.all(Array.from({ length: JOBS }, (_, n) => submit(n)));
    // The same key again answers the same job.
    const again = await fetch(`${service.baseUrl}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'pooled-0' },
      body: JSON.stringify({ type: 'SEND_EMAIL', payload: { to: 'ops@example.test', subject: 'pooled 0', text: 'hello' } }),
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { id: string }).id).toBe(ids[0]);

    await waitFor(
      async () => {
        const { rows } = await sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema.schema}".conveyor_jobs WHERE id = ANY($1::uuid[]) AND status = 'COMPLETED'`,
          [ids],
        );
        return rows[0].n === JOBS;
      },
      { timeoutMs: 20_000, intervalMs: 100, message: `all ${JOBS} submitted jobs to complete` },
    );
    expect(await statusOf(ids[JOBS - 1])).toBe('COMPLETED');
    expect(service.output()).not.toMatch(/prepared statement|unsupported startup parameter|No LISTEN/);
  }, 40_000);

  it('runs a job inserted by another producer at once: it LISTENs on LISTEN_DATABASE_URL', async () => {
    // Wait until the listener is connected: a NOTIFY sent before it listens would only be found by the poll.
    await waitFor(
      async () => {
        const { rows } = await sql.query(`SELECT 1 FROM pg_stat_activity WHERE query = $1`, [`LISTEN "conveyor:${schema.schema}"`]);
        return rows.length > 0;
      },
      { timeoutMs: 10_000, message: 'the service to LISTEN on the direct URL' },
    );
    const started = Date.now();
    const { rows } = await sql.query<{ id: string }>(
      `INSERT INTO "${schema.schema}".conveyor_jobs (type, payload) VALUES ('SEND_EMAIL', $1) RETURNING id`,
      [JSON.stringify({ to: 'ops@example.test', subject: 'from elsewhere', text: 'hello' })],
    );
    await waitFor(async () => (await statusOf(rows[0].id)) === 'COMPLETED', {
      timeoutMs: 10_000,
      message: 'the job inserted elsewhere to complete well before the one-minute poll',
    });
    console.log(`behind PgBouncer: a job inserted by another producer completed ${Date.now() - started} ms after its insert (poll: 60 s)`);
  }, 30_000);
});
