import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { ServiceProcess, spawnService, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

const unavailable = privatePostgresUnavailable();
if (unavailable) console.warn(`read-only database tests skipped: ${unavailable}`);

const EMAIL = { type: 'SEND_EMAIL', payload: { to: 'ops@example.test', subject: 'read-only', text: 'hello' } };

/**
 * The service as its own process on a database whose `default_transaction_read_only` an operator turns on and off
 * again, as when the database's address reaches a standby for a while: every session opened meanwhile is read-only
 * for its whole life, including the worker connection the engine keeps open.
 */
(unavailable ? describe.skip : describe)('a database that turns read-only and back', () => {
  let cluster: PrivatePostgres;
  let admin: Client;
  let service: ServiceProcess;
  let outbox: string;

  beforeAll(async () => {
    cluster = await PrivatePostgres.create();
    admin = new Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE conveyor');
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-read-only-outbox-'));
    service = await startServiceProcess({
      env: { DATABASE_URL: cluster.url('127.0.0.1', 'conveyor'), OUTBOX_DIR: outbox, POLL_INTERVAL_MS: '500' },
    });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await admin?.end();
    await cluster?.destroy();
    if (outbox) rmSync(outbox, { recursive: true, force: true });
  });

  const submit = () =>
    fetch(`${service.baseUrl}/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(EMAIL) });
  const conveyorSessions = `datname = 'conveyor' AND application_name LIKE 'conveyor%'`;

  it('stops start-up with exit 1 and a log line that says the database is read-only', async () => {
    await admin.query('CREATE DATABASE read_only_start');
    await admin.query('ALTER DATABASE read_only_start SET default_transaction_read_only = on');
    const started = spawnService({ env: { DATABASE_URL: cluster.url('127.0.0.1', 'read_only_start'), OUTBOX_DIR: outbox, PORT: '0' } });
    expect(await started.exited).toBe(1);
    expect(started.output()).toMatch(/"level":"fatal".*Start-up failed: .*read-only transaction/);
  }, 60_000);

  it('is not ready and refuses jobs with 503 while read-only, and runs jobs again once writable, without a restart', async () => {
    await admin.query(`ALTER DATABASE conveyor SET default_transaction_read_only = on`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE ${conveyorSessions}`);
    const turnedAt = Date.now();

    await waitFor(
      async () => {
        const res = await fetch(`${service.baseUrl}/health/ready`);
        return res.status === 503 && (await res.text()).includes('read-only');
      },
      { timeoutMs: 10_000, message: 'readiness to report the database read-only' },
    );
    // The worker connection is back, on a read-only session: its claims fail.
    await waitFor(
      async () => {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE ${conveyorSessions} AND application_name LIKE '%:worker' AND backend_start > to_timestamp($1 / 1000.0)`,
          [turnedAt],
        );
        return rows.length > 0;
      },
      { timeoutMs: 10_000, message: 'the worker connection to reconnect to the read-only database' },
    );
    // Each claim meanwhile opens a worker connection that is read-only again; the spell is logged once, not per claim.
    const sessions = async () =>
      Number((await admin.query<{ n: string }>(`SELECT sessions AS n FROM pg_stat_database WHERE datname = 'conveyor'`)).rows[0].n);
    const sessionsBefore = await sessions();
    await waitFor(async () => (await sessions()) >= sessionsBefore + 5, {
      timeoutMs: 10_000,
      message: 'five more sessions: the worker connection replaced before each claim',
    });
    const readOnlyWarnings = service
      .output()
      .split('\n')
      .filter((line) => line.includes('Worker connection is read-only'));
    expect(readOnlyWarnings).toHaveLength(1);
    const refused = await submit();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).not.toBeNull();

    await admin.query(`ALTER DATABASE conveyor RESET default_transaction_read_only`);
    const db = new Client({ connectionString: cluster.url('127.0.0.1', 'conveyor') });
    await db.connect();
    try {
      // A job another instance inserted: only this instance's claims can run it.
      const { rows } = await db.query<{ id: string }>(`INSERT INTO conveyor_jobs (type, payload) VALUES ($1, $2) RETURNING id`, [
        EMAIL.type,
        EMAIL.payload,
      ]);
      await waitFor(
        async () => {
          const job = await db.query<{ status: string }>(`SELECT status FROM conveyor_jobs WHERE id = $1`, [rows[0].id]);
          return job.rows[0].status === 'COMPLETED';
        },
        { timeoutMs: 10_000, message: 'a job inserted once the database is writable to complete' },
      );
      const accepted = await waitFor(async () => ((await submit()).status === 201 ? true : null), {
        timeoutMs: 10_000,
        intervalMs: 200,
        message: 'POST /jobs to answer 201 again',
      });
      expect(accepted).toBe(true);
      await waitFor(async () => (await fetch(`${service.baseUrl}/health/ready`)).status === 200, {
        timeoutMs: 10_000,
        message: 'readiness to come back',
      });
    } finally {
      await db.end();
    }
    expect(service.proc.exitCode).toBeNull();
    expect(service.output()).not.toMatch(/Unhandled 'error' event/);
  }, 60_000);
});
