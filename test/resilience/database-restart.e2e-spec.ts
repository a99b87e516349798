import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { FAULT_TEST_SERVICE_ENV, startServiceLoad } from '../support/service-load';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const RESTARTS = 20;
const unavailable = privatePostgresUnavailable();
if (unavailable) console.warn(`database restart tests skipped: ${unavailable}`);

/**
 * The service as its own process on a PostgreSQL of the test's own, restarted with `pg_ctl restart -m fast` again
 * and again while requests keep coming: every session the server had ends with 57P01, including connections the
 * service holds checked out with no statement running on them.
 */
(unavailable ? describe.skip : describe)('PostgreSQL restarts under load', () => {
  let cluster: PrivatePostgres;
  let service: ServiceProcess;
  let outbox: string;

  beforeAll(async () => {
    cluster = await PrivatePostgres.create();
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-restart-outbox-'));
    service = await startServiceProcess({
      env: {
        DATABASE_URL: cluster.url(),
        OUTBOX_DIR: outbox,
        ...FAULT_TEST_SERVICE_ENV,
      },
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await cluster?.destroy();
    if (outbox) rmSync(outbox, { recursive: true, force: true });
  });

  it(`survives ${RESTARTS} fast restarts in a row: it never exits, answers 2xx or 503 with Retry-After, and completes every accepted job`, async () => {
    // Four submitters and a readiness probe, each back to back, for as long as the restarts go on.
    const load = startServiceLoad(service.baseUrl, 'restart');
    const { answers } = load;

    try {
      for (let i = 0; i < RESTARTS; i++) {
        // Each restart hits a service that is serving again: wait for a job accepted since the last one.
        const before = answers.length;
        await waitFor(() => answers.slice(before).some((a) => a.route === '/jobs' && a.status === 201), {
          timeoutMs: 30_000,
          message: `a submission accepted before restart ${i + 1}`,
        });
        await cluster.restart('fast');
        expect(service.proc.exitCode).toBeNull();
      }
      await waitFor(() => answers.some((a, i) => i > answers.length - 20 && a.route === '/jobs' && a.status === 201), {
        timeoutMs: 30_000,
        message: 'submissions to be accepted after the last restart',
      });
    } finally {
      await load.stop();
    }

    expect(service.proc.exitCode).toBeNull();
    expect(service.output()).not.toMatch(/Unhandled 'error' event/);
    const wrong = answers.filter((a) => ![200, 201, 503].includes(a.status) || (a.status === 503 && !a.retryAfter));
    expect(wrong).toEqual([]);
    const accepted = answers.filter((a) => a.route === '/jobs' && a.status === 201).map((a) => a.jobId!);
    const refused = answers.filter((a) => a.status === 503).length;
    expect(accepted.length).toBeGreaterThan(RESTARTS);

    const db = new Client({ connectionString: cluster.url() });
    await db.connect();
    try {
      const counts = await waitFor(
        async () => {
          const { rows } = await db.query<{ status: string; n: number }>(
            `SELECT status, count(*)::int AS n FROM conveyor_jobs WHERE id = ANY($1::uuid[]) GROUP BY status`,
            [accepted],
          );
          const byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n]));
          return byStatus.COMPLETED === accepted.length ? byStatus : null;
        },
        { timeoutMs: 60_000, message: `all ${accepted.length} accepted jobs to complete` },
      );
      expect(counts).toEqual({ COMPLETED: accepted.length });
    } finally {
      await db.end();
    }
    console.log(
      `${RESTARTS} fast restarts: ${answers.length} answers, ${accepted.length} jobs accepted and completed, ${refused} answered 503 with Retry-After`,
    );
  }, 600_000);
});
