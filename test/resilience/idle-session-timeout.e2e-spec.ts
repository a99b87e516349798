import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from 'pg';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const unavailable = privatePostgresUnavailable();
if (unavailable) console.warn(`idle session timeout tests skipped: ${unavailable}`);

/** The database's idle limit, and an idle period of several of them. */
const IDLE_LIMIT_MS = 1000;
const IDLE_PERIOD_MS = 3500;

/**
 * The service as its own process on a database with a short `idle_session_timeout`, as managed services and DBAs
 * set to end forgotten sessions. The poll interval is longer than the limit, so between jobs the worker connection
 * idles past it, and the LISTEN connection always does.
 */
(unavailable ? describe.skip : describe)('a database that ends idle sessions', () => {
  let cluster: PrivatePostgres;
  let db: Client;
  let service: ServiceProcess;
  let outbox: string;

  beforeAll(async () => {
    cluster = await PrivatePostgres.create();
    const admin = new Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE conveyor');
    await admin.query(`ALTER DATABASE conveyor SET idle_session_timeout = ${IDLE_LIMIT_MS}`);
    await admin.end();
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-idle-outbox-'));
    service = await startServiceProcess({
      env: { DATABASE_URL: cluster.url('127.0.0.1', 'conveyor'), OUTBOX_DIR: outbox, POLL_INTERVAL_MS: '5000', LOG_LEVEL: 'log' },
    });
    db = new Client({ connectionString: cluster.url('127.0.0.1', 'conveyor'), options: '-c idle_session_timeout=0' });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await db?.end();
    await cluster?.destroy();
    if (outbox) rmSync(outbox, { recursive: true, force: true });
  });

  /** The backends of the connections the service holds open, by role. */
  const heldSessions = async () => {
    const { rows } = await db.query<{ role: string; pid: number }>(
      `SELECT application_name AS role, pid FROM pg_stat_activity
       WHERE datname = 'conveyor' AND application_name IN ('conveyor:listener', 'conveyor:worker') ORDER BY 1`,
    );
    return rows;
  };

  it('keeps its LISTEN and worker connections through idle periods, and a job inserted after one runs at once', async () => {
    const before = await waitFor(async () => ((await heldSessions()).length === 2 ? heldSessions() : null), {
      message: 'the LISTEN and worker connections to be open',
    });
    // The idle period is what is tested: nothing happens during it that could be awaited instead.
    await delay(IDLE_PERIOD_MS);
    expect(await heldSessions()).toEqual(before);
    expect(service.output()).not.toMatch(/LISTEN connection lost|Worker connection lost/);

    // Inserted by another client, so only the notification (the poll is 5 s away) wakes the worker.
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO conveyor_jobs (type, payload) VALUES ('SEND_EMAIL', '{"to":"ops@example.test","subject":"idle","text":"hi"}') RETURNING id`,
    );
    const { pickupMs } = await waitFor(
      async () => {
        const job = await db.query<{ status: string; pickupMs: number }>(
          `SELECT status, extract(epoch FROM started_at - created_at) * 1000 AS "pickupMs" FROM conveyor_jobs WHERE id = $1`,
          [rows[0].id],
        );
        return job.rows[0].status === 'COMPLETED' ? job.rows[0] : null;
      },
      { timeoutMs: 4000, message: 'the job to complete before the next poll' },
    );
    expect(Number(pickupMs)).toBeLessThan(1000);
    expect(service.proc.exitCode).toBeNull();
  }, 30_000);
});
