import { Client } from 'pg';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';
import { HttpWorkerPayload } from '../workers/support/http-worker-payload';
import { HttpWorkerProcess, spawnHttpWorker } from '../workers/support/spawn-http-worker';
import { TestHost, TestNetwork } from './support/test-network';
import { jobEnds } from './support/job-ends';

const TYPE = 'EXT_CUT';
const LEASE_MS = 4000;
/** runWorker's default: a third of the lease. */
const HEARTBEAT_INTERVAL_MS = Math.floor(LEASE_MS / 3);
const MAINTENANCE_INTERVAL_MS = 500;
/** A cut shorter than the lease by more than two heartbeat intervals. */
const SHORT_CUT_MS = 1000;
/** Between two of TCP's retransmissions of a request sent at the cut (about 12.6 s and 25.4 s after it). */
const IDLE_CUT_MS = 14_000;
/** Longer than the lease. */
const LOST_CLAIM_CUT_MS = 2 * LEASE_MS;
/** The cut worker's request timeout in that test: its claim is timed out and sent again during the cut. */
const CLAIM_TIMEOUT_MS = 2000;
/** Slack for process scheduling on a small CI machine. */
const SLACK_MS = 1500;

const unavailable = TestNetwork.unavailable() ?? privatePostgresUnavailable();
if (unavailable) console.warn(`HTTP worker cut tests skipped: ${unavailable}`);

/**
 * The service in the root namespace with its database; a `runWorker` process on a host of its own that is cut off
 * (every packet dropped, neither side told) while it holds jobs, then healed; another worker process in the root
 * namespace, which no cut reaches, takes over what the cut one lost. Every job's end is read from the database.
 */
(unavailable ? describe.skip : describe)('an HTTP worker cut off from the service while it holds jobs', () => {
  let network: TestNetwork;
  let postgres: PrivatePostgres;
  let db: Client;
  let service: ServiceProcess;
  let cutHost: TestHost;
  let port: string;
  const workers: HttpWorkerProcess[] = [];

  const spawn = async (queue: string, workerId: string, onCutHost: boolean, extra: { concurrency?: number; timeoutMs?: number } = {}) => {
    const w = spawnHttpWorker({
      baseUrl: `http://${onCutHost ? network.gateway : '127.0.0.1'}:${port}`,
      queue,
      workerId,
      leaseMs: LEASE_MS,
      prefix: onCutHost ? cutHost.exec : [],
      ...extra,
    });
    workers.push(w);
    await w.ready;
    return w;
  };
  const enqueue = async (queue: string, count: number, payload: HttpWorkerPayload, maxAttempts = 5): Promise<string[]> =>
    (
      await db.query<{ id: string }>(
        `INSERT INTO conveyor_jobs (type, queue, payload, max_attempts) SELECT $1, $2, $3::jsonb, $4 FROM generate_series(1, $5) RETURNING id`,
        [TYPE, queue, JSON.stringify(payload), maxAttempts, count],
      )
    ).rows.map((r) => r.id);
  const jobs = (ids: string[]) => jobEnds(db, ids);
  const events = (w: HttpWorkerProcess, kind: string, ids: string[]) =>
    w.events().filter((e) => e.event === kind && ids.includes(e.id as string));
  const stop = async (w: HttpWorkerProcess) => {
    if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
    await w.exited;
  };

  beforeAll(async () => {
    network = TestNetwork.create(1);
    [cutHost] = network.hosts;
    postgres = await PrivatePostgres.create();
    db = new Client({ connectionString: postgres.url() });
    await db.connect();
    service = await startServiceProcess({
      env: {
        DATABASE_URL: postgres.url(),
        WORKER_ID: 'service',
        // No in-process workers: every claim statement is an HTTP worker's.
        RUN_WORKERS: 'false',
        EXTERNAL_TYPES: TYPE,
        LEASE_MS: String(LEASE_MS),
        HEARTBEAT_INTERVAL_MS: '1000',
        MAINTENANCE_INTERVAL_MS: String(MAINTENANCE_INTERVAL_MS),
        BACKOFF_BASE_MS: '100',
        BACKOFF_MAX_MS: '200',
      },
    });
    port = new URL(service.baseUrl).port;
  }, 120_000);

  afterEach(async () => {
    network.heal(cutHost);
    for (const w of workers.splice(0)) await stop(w);
  });

  afterAll(async () => {
    await service?.stop();
    await db?.end();
    await postgres?.destroy();
    network?.destroy();
  });

  it('cut off for longer than the lease: its handlers are aborted before another worker starts the jobs; healed, it works again within seconds', async () => {
    const queue = 'long-cut';
    const cut = await spawn(queue, 'cut-worker', true, { concurrency: 3 });
    const ids = await enqueue(queue, 3, { sleepMs: 6 * LEASE_MS });
    await waitFor(() => events(cut, 'started', ids).length === 3, { timeoutMs: 20_000, message: 'the cut worker to run every job' });
    network.cut(cutHost);
    const cutAt = Date.now();
    const other = await spawn(queue, 'other-worker', false, { concurrency: 3 });

    await waitFor(() => events(other, 'started', ids).length === 3, {
      timeoutMs: 30_000,
      intervalMs: 20,
      message: "the cut worker's jobs to start on the other worker",
    });
    const lines = ids.map((id) => {
      const aborted = events(cut, 'aborted', [id])[0];
      const started = events(other, 'started', [id])[0];
      return {
        id,
        abortedMs: aborted ? cut.at(aborted) - cutAt : null,
        startedElsewhereMs: other.at(started) - cutAt,
        reason: aborted?.reason,
      };
    });
    console.log(
      `HTTP worker cut off (lease ${LEASE_MS} ms, heartbeat ${HEARTBEAT_INTERVAL_MS} ms):\n${lines.map((l) => JSON.stringify(l)).join('\n')}`,
    );
    for (const l of lines) {
      expect({ id: l.id, abortedFirst: l.abortedMs !== null && l.abortedMs < l.startedElsewhereMs, reason: l.reason }).toEqual({
        id: l.id,
        abortedFirst: true,
        reason: 'LeaseLostError',
      });
      expect(l.abortedMs!).toBeLessThanOrEqual(LEASE_MS + SLACK_MS);
    }

    // The other worker is kept busy by the rescued jobs: jobs enqueued now wait for the healed worker.
    await waitFor(() => Date.now() - cutAt >= 3 * LEASE_MS, { timeoutMs: 4 * LEASE_MS, intervalMs: 100 });
    const later = await enqueue(queue, 3, { sleepMs: 50 });
    network.heal(cutHost);
    const healedAt = Date.now();
    const errors = () =>
      cut
        .events()
        .filter((e) => e.event === 'error')
        .map((e) => `${cut.at(e) - cutAt} ms: ${e.message as string}`);
    await waitFor(() => events(cut, 'started', later).length > 0, { timeoutMs: 3 * LEASE_MS, intervalMs: 20 }).catch(() =>
      console.log(`healed worker idle; its errors since the cut (healed at ${healedAt - cutAt} ms):\n${errors().join('\n')}`),
    );
    const workingMs = Date.now() - healedAt;
    const ends = await waitFor(
      async () => {
        const rows = await jobs([...ids, ...later]);
        return rows.every((j) => j.status === 'COMPLETED') ? rows : null;
      },
      { timeoutMs: 60_000, message: 'every job to complete' },
    );
    console.log(`healed: the cut worker started a new job ${workingMs} ms after the network returned`);
    console.log(errors().join('\n'));
    for (const j of ends) {
      // A later job may first have been claimed by a request the cut worker sent during the cut, whose answer came
      // after it stopped waiting: handed back unrun, its attempt not counted.
      const kinds = j.errors.map((e) => e.kind);
      const expected = ids.includes(j.id)
        ? { attempts: 2, kinds: ['lease-expired'] }
        : { attempts: 1, kinds: kinds.filter((k) => k === 'handed-back') };
      expect({ id: j.id, attempts: j.attempts, kinds }).toEqual({ id: j.id, ...expected });
    }
    expect(cut.proc.exitCode).toBeNull();
    expect(workingMs).toBeLessThanOrEqual(5000);
  }, 180_000);
  it('cut off for less than the lease: its jobs run on there, once, and complete on their first attempt', async () => {
    const queue = 'short-cut';
    const cut = await spawn(queue, 'short-cut-worker', true, { concurrency: 3 });
    const ids = await enqueue(queue, 3, { sleepMs: 2 * LEASE_MS });
    await waitFor(() => events(cut, 'started', ids).length === 3, { timeoutMs: 20_000, message: 'the worker to run every job' });
    network.cut(cutHost);
    const cutAt = Date.now();
    await waitFor(() => Date.now() - cutAt >= SHORT_CUT_MS, { timeoutMs: 2 * SHORT_CUT_MS, intervalMs: 50 });
    network.heal(cutHost);
    const ends = await waitFor(
      async () => {
        const rows = await jobs(ids);
        return rows.every((j) => j.status === 'COMPLETED') ? rows : null;
      },
      { timeoutMs: 60_000, message: 'every job to complete' },
    );
    for (const j of ends) expect({ id: j.id, attempts: j.attempts, errors: j.errors }).toEqual({ id: j.id, attempts: 1, errors: [] });
    expect(events(cut, 'aborted', ids)).toEqual([]);
    expect(events(cut, 'started', ids)).toHaveLength(3);
  }, 120_000);

  it('an idle worker cut off: healed, it claims new jobs within seconds', async () => {
    const queue = 'idle-cut';
    const cut = await spawn(queue, 'idle-worker', true);
    network.cut(cutHost);
    const cutAt = Date.now();
    await waitFor(() => Date.now() - cutAt >= IDLE_CUT_MS, { timeoutMs: 2 * IDLE_CUT_MS, intervalMs: 100 });
    const ids = await enqueue(queue, 1, { sleepMs: 50 });
    network.heal(cutHost);
    const healedAt = Date.now();
    await waitFor(() => events(cut, 'started', ids).length > 0, {
      timeoutMs: 60_000,
      intervalMs: 20,
      message: 'the healed worker to start a job',
    });
    const workingMs = Date.now() - healedAt;
    const errors = cut
      .events()
      .filter((e) => e.event === 'error')
      .map((e) => `${cut.at(e) - cutAt} ms: ${e.message as string}`);
    console.log(`idle worker cut off ${IDLE_CUT_MS} ms: started a new job ${workingMs} ms after the heal; errors:\n${errors.join('\n')}`);
    expect(workingMs).toBeLessThanOrEqual(5000);
  }, 120_000);

  it('a claim whose answer is lost in the cut: its jobs wait out the lease, are rescued once and run once, on their next attempt', async () => {
    const queue = 'lost-claim';
    const cut = await spawn(queue, 'lost-claim-worker', true, { concurrency: 3, timeoutMs: CLAIM_TIMEOUT_MS });
    const locker = new Client({ connectionString: postgres.url() });
    await locker.connect();
    let ids: string[] = [];
    try {
      // The claim waits on the lock; the jobs are there once the lock goes, and the answer is lost.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE conveyor_jobs IN ACCESS EXCLUSIVE MODE');
      ids = (
        await locker.query<{ id: string }>(
          `INSERT INTO conveyor_jobs (type, queue, payload, max_attempts) SELECT $1, $2, '{"sleepMs":50}'::jsonb, 2 FROM generate_series(1, 3) RETURNING id`,
          [TYPE, queue],
        )
      ).rows.map((r) => r.id);
      // The HTTP worker's claim (the service claims nothing for itself), not a maintenance statement.
      await waitFor(
        async () =>
          (await db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%ctid = ANY(ARRAY(%'`)).rowCount! >
          0,
        { timeoutMs: 10_000, message: "the HTTP worker's claim to wait on the lock" },
      );
      network.cut(cutHost);
      await locker.query('COMMIT');
    } finally {
      await locker.end();
    }
    const cutAt = Date.now();
    const claimed = await waitFor(
      async () => {
        const held = (await jobs(ids)).filter((j) => j.locked_by === cut.workerId);
        return held.length === 3 ? held : null;
      },
      { timeoutMs: 5000, message: 'the cut worker to hold the three jobs' },
    );
    expect(claimed).toHaveLength(3);
    await waitFor(() => Date.now() - cutAt >= LOST_CLAIM_CUT_MS, { timeoutMs: 2 * LOST_CLAIM_CUT_MS, intervalMs: 100 });
    network.heal(cutHost);
    const ends = await waitFor(
      async () => {
        const rows = await jobs(ids);
        return rows.every((j) => j.status === 'COMPLETED' || j.status === 'DEAD') ? rows : null;
      },
      { timeoutMs: 60_000, message: 'every job to end' },
    );
    const { rows: claims } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM conveyor_jobs WHERE queue = $1`, [queue]);
    const errors = cut
      .events()
      .filter((e) => e.event === 'error')
      .map((e) => `${cut.at(e) - cutAt} ms: ${e.message as string}`);
    console.log(
      `lost claim: ${JSON.stringify(ends.map((j) => ({ status: j.status, attempts: j.attempts, kinds: j.errors.map((e) => e.kind) })))}; ${claims[0].n} jobs; starts ${JSON.stringify(events(cut, 'started', ids))}\nerrors:\n${errors.join('\n')}`,
    );
    // The server cannot tell a lost answer from a worker that died with the jobs: the attempt counts.
    for (const j of ends) {
      expect({ id: j.id, status: j.status, attempts: j.attempts, kinds: j.errors.map((e) => e.kind) }).toEqual({
        id: j.id,
        status: 'COMPLETED',
        attempts: 2,
        kinds: ['lease-expired'],
      });
    }
    expect(events(cut, 'started', ids).map((e) => e.attempt)).toEqual([2, 2, 2]);
  }, 120_000);
});
