import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { ServiceProcess, spawnService, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

/** Far longer than a wake-up may take: a job picked up within seconds was woken by its NOTIFY, not found by a poll. */
const POLL_INTERVAL_MS = 120_000;
const WAKE_UP_MS = 10_000;

const unavailable = privatePostgresUnavailable();
if (unavailable) console.warn(`TLS database tests skipped: ${unavailable}`);

/** A server-sent event stream read into one text as it arrives. */
async function openEvents(url: string): Promise<{ text(): string; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(url, { signal: controller.signal });
  expect(res.status).toBe(200);
  let text = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { text: () => text, close: () => controller.abort() };
}

/**
 * Inserts a job behind the service's back, and waits for it to complete: only its NOTIFY can wake a worker before the
 * next poll. Its id.
 */
async function completesOnItsNotify(db: Client, service: ServiceProcess, subject: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO conveyor_jobs (type, payload) VALUES ('SEND_EMAIL', jsonb_build_object('to', 'ops@example.test', 'subject', $1::text, 'text', 'hi')) RETURNING id`,
    [subject],
  );
  const id = rows[0].id;
  await waitFor(
    async () =>
      (await db.query<{ status: string }>('SELECT status FROM conveyor_jobs WHERE id = $1', [id])).rows[0]?.status === 'COMPLETED',
    {
      timeoutMs: WAKE_UP_MS,
      message: `job ${id} completed on its NOTIFY\n${service.output().slice(-3000)}`,
    },
  );
  return id;
}

/**
 * The service against a PostgreSQL that serves TLS only, as managed databases do (plain connections are refused by
 * pg_hba.conf), with TLS asked for in DATABASE_URL the ways a user would.
 */
(unavailable ? describe.skip : describe)('a database that requires TLS', () => {
  let cluster: PrivatePostgres;
  /** The test's own connection to `database`, over TLS with the server's certificate as its CA. */
  const connectDb = async (database = 'postgres'): Promise<Client> => {
    const client = new Client({
      connectionString: cluster.url('localhost', database),
      ssl: { ca: readFileSync(cluster.certificateFile, 'utf8') },
    });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };

  /** A service process on a database of its own, with the test's own connection to that database (`db`). */
  interface ServiceOnDatabase {
    service: ServiceProcess;
    db: Client;
    stop(): Promise<void>;
  }
  const startOnDatabase = async (database: string, env: Record<string, string>): Promise<ServiceOnDatabase> => {
    const outbox = mkdtempSync(join(tmpdir(), 'conveyor-tls-outbox-'));
    const admin = await connectDb();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const db = await connectDb(database);
    const removeOutbox = () => rmSync(outbox, { recursive: true, force: true });
    let service: ServiceProcess;
    try {
      service = await startServiceProcess({ env: { OUTBOX_DIR: outbox, POLL_INTERVAL_MS: String(POLL_INTERVAL_MS), ...env } });
    } catch (err) {
      await db.end();
      removeOutbox();
      throw err;
    }
    const on: ServiceOnDatabase = {
      service,
      db,
      stop: async () => {
        await service.stop();
        await on.db.end();
        removeOutbox();
      },
    };
    return on;
  };

  beforeAll(async () => {
    // 127.0.0.2 is an address its certificate does not name.
    cluster = await PrivatePostgres.create({ tlsOnly: true, listen: '127.0.0.1,127.0.0.2' });
  }, 120_000);

  afterAll(async () => {
    await cluster?.destroy();
  });

  it('refuses a connection without TLS', async () => {
    const plain = new Client({ connectionString: cluster.url(), ssl: false });
    await expect(plain.connect()).rejects.toThrow(/no encryption/);
  });

  it('stops start-up with sslmode=require and a certificate Node does not trust: pg reads require as verify-full', async () => {
    const spawned = spawnService({ env: { DATABASE_URL: `${cluster.url()}?sslmode=require`, PORT: '0' } });
    expect(await spawned.exited).not.toBe(0);
    expect(spawned.output()).toMatch(/self-signed certificate/);
  }, 60_000);

  /** How a user asks for TLS, and the URL that says so (each service has a database of its own). */
  const urls: [string, (database: string) => string][] = [
    [
      'sslmode=verify-full with the CA in sslrootcert',
      (d) => `${cluster.url('localhost', d)}?sslmode=verify-full&sslrootcert=${cluster.certificateFile}`,
    ],
    ['sslmode=no-verify', (d) => `${cluster.url('127.0.0.1', d)}?sslmode=no-verify`],
  ];

  describe.each(urls)('DATABASE_URL with %s', (_how, url) => {
    let on: ServiceOnDatabase;
    let service: ServiceProcess;
    let db: Client;
    const database = `tls_${urls.findIndex(([, u]) => u === url)}`;

    beforeAll(async () => {
      on = await startOnDatabase(database, { DATABASE_URL: url(database), LEASE_MS: '4000', HEARTBEAT_INTERVAL_MS: '1000' });
      ({ service, db } = on);
    }, 120_000);

    afterAll(async () => {
      if (!on) return;
      on.db = db; // the restart case connects again
      await on.stop();
    });

    const ready = async () => (await fetch(`${service.baseUrl}/health/ready`).catch(() => null))?.status === 200;

    const completesOnWakeUp = (subject: string) => completesOnItsNotify(db, service, subject);

    it('migrates, is ready, wakes a worker by NOTIFY and streams live events', async () => {
      await waitFor(ready, { timeoutMs: 30_000, message: '/health/ready to answer 200' });
      const events = await openEvents(`${service.baseUrl}/events`);
      try {
        const id = await completesOnWakeUp('first');
        await waitFor(() => events.text().includes(id) && events.text().includes('COMPLETED'), {
          timeoutMs: 10_000,
          message: `live events of ${id}`,
        });
      } finally {
        events.close();
      }
    });

    it('survives a restart of the server', async () => {
      await db.end();
      await cluster.restart('fast');
      db = await connectDb(database);
      await waitFor(ready, { timeoutMs: 30_000, message: '/health/ready to answer 200 after the restart' });
      // The LISTEN connection comes back on its own reconnection schedule: a job inserted then is woken up by it.
      await waitFor(
        async () =>
          await completesOnWakeUp('after restart').then(
            () => true,
            () => false,
          ),
        {
          timeoutMs: 60_000,
          message: 'a job woken up after the restart',
        },
      );
      expect(service.proc.exitCode).toBeNull();
    });
  });

  /**
   * LISTEN_DATABASE_URL takes its TLS settings from its own sslmode: here it reaches the server at an address the
   * certificate does not name, so it connects only if it does not verify as DATABASE_URL asks, and only over TLS.
   */
  describe('LISTEN_DATABASE_URL with an sslmode of its own', () => {
    const database = 'tls_listen';
    let on: ServiceOnDatabase;
    let service: ServiceProcess;
    let db: Client;

    beforeAll(async () => {
      on = await startOnDatabase(database, {
        DATABASE_URL: `${cluster.url('localhost', database)}?sslmode=verify-full&sslrootcert=${cluster.certificateFile}`,
        LISTEN_DATABASE_URL: `${cluster.url('127.0.0.2', database)}?sslmode=no-verify`,
      });
      ({ service, db } = on);
    }, 120_000);

    afterAll(async () => {
      await on?.stop();
    });

    it('wakes a worker by NOTIFY over a TLS LISTEN connection', async () => {
      await waitFor(async () => (await fetch(`${service.baseUrl}/health/ready`).catch(() => null))?.status === 200, {
        timeoutMs: 30_000,
        message: '/health/ready to answer 200',
      });
      await completesOnItsNotify(db, service, 'listen url');
      const { rows } = await db.query<{ ssl: boolean }>(
        `SELECT s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.datname = $1 AND a.application_name = 'conveyor:listener'`,
        [database],
      );
      expect(rows).toEqual([{ ssl: true }]);
    });
  });
});
