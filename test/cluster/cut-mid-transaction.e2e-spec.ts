import { Client } from 'pg';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';
import { TestHost, TestNetwork } from './support/test-network';

const SCHEDULE = { name: 'every-second', type: 'SEND_EMAIL', cron: '* * * * * *', payload: { to: 'ops@example.com', subject: 'tick' } };

const unavailable = TestNetwork.unavailable() ?? privatePostgresUnavailable();
if (unavailable) console.warn(`cluster tests skipped: ${unavailable}`);

/**
 * Two API-only instances of the service, each on a host of its own, sharing one per-second cron schedule. A host
 * cut off between two statements of a transaction leaves its server session waiting for a statement that never
 * comes; PostgreSQL notices the dead peer only when TCP gives up, minutes later. The locks that session holds must
 * not stop the other hosts for that long.
 */
(unavailable ? describe.skip : describe)('a host cut off in the middle of a transaction', () => {
  let network: TestNetwork;
  let cluster: PrivatePostgres;
  let db: Client;
  const services: ServiceProcess[] = [];

  const startService = (host: TestHost): Promise<ServiceProcess> =>
    startServiceProcess({
      prefix: host.exec,
      host: host.address,
      env: {
        DATABASE_URL: cluster.url(network.gateway),
        WORKER_ID: `cut-${host.name}`,
        RUN_WORKERS: 'false',
        CRON_SCHEDULES: JSON.stringify([SCHEDULE]),
      },
    });
  /** Newest tick enqueued for the schedule, as epoch ms (0 for none). */
  const newestTick = async (): Promise<number> => {
    const { rows } = await db.query<{ tick: number | null }>(
      `SELECT (extract(epoch FROM max(run_at)) * 1000)::float8 AS tick FROM conveyor_jobs WHERE idempotency_key LIKE 'cron:every-second:%'`,
    );
    return rows[0].tick ?? 0;
  };
  /** The state of `host`'s server session that waits for the schedule's lock or holds it, if any. */
  const sessionOf = async (host: TestHost): Promise<string | null> => {
    const { rows } = await db.query<{ state: string; wait_event_type: string | null }>(
      `SELECT state, wait_event_type FROM pg_stat_activity WHERE client_addr = $1::inet AND (wait_event_type = 'Lock' OR state LIKE 'idle in transaction%')`,
      [host.address],
    );
    return rows[0] ? (rows[0].wait_event_type === 'Lock' ? 'waiting' : rows[0].state) : null;
  };

  beforeAll(async () => {
    network = TestNetwork.create(2);
    cluster = await PrivatePostgres.create({ listen: `127.0.0.1,${network.gateway}` });
    db = new Client({ connectionString: cluster.url() });
    await db.connect();
    services.push(...(await Promise.all(network.hosts.map((host) => startService(host)))));
  }, 120_000);

  afterAll(async () => {
    for (const host of network?.hosts ?? []) network.heal(host);
    await Promise.all(services.map((s) => s.stop()));
    await db?.end();
    await cluster?.destroy();
    network?.destroy();
  });

  it('a cron round cut off while it holds the schedule: the other host enqueues the next ticks within seconds', async () => {
    const [cut] = network.hosts;
    await waitFor(async () => (await newestTick()) > 0, { timeoutMs: 20_000, message: 'the schedule to enqueue its first tick' });

    // Hold the schedule's row until the cut host's round waits for it, cut that host off, then let its round have
    // the row: its session takes the lock and waits for the round's next statement, which never arrives.
    await db.query('BEGIN');
    await db.query(`SELECT 1 FROM conveyor_schedules WHERE name = $1 FOR UPDATE`, [SCHEDULE.name]);
    await waitFor(async () => (await sessionOf(cut)) === 'waiting', {
      timeoutMs: 10_000,
      message: "the cut host's round to wait for the schedule",
    });
    network.cut(cut);
    await db.query('COMMIT');
    await waitFor(async () => (await sessionOf(cut)) === 'idle in transaction', {
      timeoutMs: 20_000,
      message: "the cut host's session to hold the schedule",
    });
    const heldAt = Date.now();

    await waitFor(async () => (await newestTick()) > heldAt, { timeoutMs: 30_000, message: 'a tick after the cut to be enqueued' });
    const resumedMs = Date.now() - heldAt;
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM conveyor_jobs GROUP BY idempotency_key HAVING count(*) > 1`,
    );
    expect(rows).toEqual([]);
    console.log(
      `a cron round cut off mid-transaction: the other host enqueued the next tick ${resumedMs} ms after the cut session took the lock`,
    );
  }, 120_000);
});
