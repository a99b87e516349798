import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { MIGRATIONS } from '../../libs/conveyor/src/storage/migrations/migrations';
import { checkOutPreviousRelease, PreviousReleaseWorktree } from '../support/previous-release-worktree';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/**
 * How late after its run_at a job may start and count as on time: far below the fallback poll (a minute), so a job
 * started within it was woken by a notification or its own insert; the rest is slack for two services and the test
 * sharing a small machine.
 */
const ON_TIME_MS = 5_000;

interface JobAnswer {
  id: string;
}

/**
 * docs/operations.md "Upgrades", done as an operator does it: the service of the build before the newest migration
 * runs, this build starts beside it on the same schema and migrates, both take submissions and run jobs, then the
 * previous build starts again on the migrated schema (going back). The fallback poll is a minute, so every job
 * counted on time was woken by a notification or this instance's own insert.
 */
describe('rolling upgrade from the build before the newest migration', () => {
  let previous: PreviousReleaseWorktree | null;
  let schema: TestSchema;
  let pool: Pool;
  let outbox: string;
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    previous = checkOutPreviousRelease();
    schema = await createTestSchema('rolling_upgrade');
    pool = new Pool({ connectionString: schema.url, max: 2 });
    outbox = mkdtempSync(join(tmpdir(), 'conveyor-upgrade-outbox-'));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    await pool?.end();
    await schema?.drop();
    rmSync(outbox, { recursive: true, force: true });
    previous?.remove();
  });

  async function start(root: string | undefined, name: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const { rows: before } = await pool.query<{ now: Date }>('SELECT now()');
    const service = await startServiceProcess({
      root,
      env: {
        DATABASE_URL: process.env.CONVEYOR_TEST_DATABASE_URL!,
        DATABASE_SCHEMA: schema.schema,
        OUTBOX_DIR: outbox,
        WORKER_ID: name,
        POLL_INTERVAL_MS: '60000',
        ...env,
      },
    });
    running.push(service);
    await waitFor(async () => (await fetch(`${service.baseUrl}/health/ready`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 100,
      message: `${name} to be ready`,
    });
    // Ready comes before its LISTEN connection is up; with a one-minute poll, a job scheduled in that gap would wait
    // for the poll in the previous build, which claims nothing when it starts listening.
    if (env.RUN_WORKERS !== 'false') {
      await waitFor(
        async () =>
          (
            await pool.query(`SELECT 1 FROM pg_stat_activity WHERE query = $1 AND backend_start >= $2`, [
              `LISTEN "conveyor:${schema.schema}"`,
              before[0].now,
            ])
          ).rows.length > 0,
        { timeoutMs: 30_000, intervalMs: 50, message: `${name} to LISTEN` },
      );
    }
    return service;
  }

  const email = (subject: string, dueInMs: number, extra: object = {}) => ({
    type: 'SEND_EMAIL',
    payload: { to: 'upgrade@example.test', subject },
    runAt: new Date(Date.now() + dueInMs).toISOString(),
    ...extra,
  });

  async function post<T>(service: ServiceProcess, path: string, body: object, expected = 201): Promise<T> {
    const res = await fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(expected);
    return (await res.json()) as T;
  }

  /** `shiftMs` keeps each build's due times apart, so no timer armed for one build's jobs finds the other's. */
  async function submitMix(
    service: ServiceProcess,
    label: string,
    key: string,
    others: ServiceProcess[],
    shiftMs: number,
  ): Promise<string[]> {
    const single = await post<JobAnswer>(service, '/jobs', email(`${label} single`, 800 + shiftMs));
    const batch = await post<{ jobs: JobAnswer[] }>(service, '/jobs/batch', {
      jobs: [email(`${label} now`, 0), email(`${label} later`, 1200 + shiftMs), email(`${label} latest`, 2000 + shiftMs)],
    });
    const keyedBody = email(`${label} keyed`, 0, { idempotencyKey: key });
    const keyed = await post<JobAnswer>(service, '/jobs', keyedBody);
    for (const other of others) {
      const again = await post<JobAnswer>(other, '/jobs', keyedBody, 200);
      expect(again.id).toBe(keyed.id);
    }
    return [single.id, ...batch.jobs.map((j) => j.id), keyed.id];
  }

  /** Every job completed after one attempt, and started within `lateMs` of its run_at (database clock). */
  async function expectRunOnceWhenDue(ids: string[], lateMs: number): Promise<void> {
    await waitFor(
      async () => {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${schema.schema}.conveyor_jobs WHERE id = ANY($1) AND status = 'COMPLETED'`,
          [ids],
        );
        return rows[0].n === ids.length;
      },
      { timeoutMs: 15_000, intervalMs: 100, message: 'every job to complete' },
    ).catch(async (err: unknown) => {
      const { rows } = await pool.query(
        `SELECT id, status, run_at, created_at, locked_by, attempts, now() FROM ${schema.schema}.conveyor_jobs WHERE id = ANY($1) AND status <> 'COMPLETED'`,
        [ids],
      );
      throw new Error(`${(err as Error).message}; not completed: ${JSON.stringify(rows)}`);
    });
    const { rows } = await pool.query<{ id: string; attempts: number; late_ms: number }>(
      `SELECT id, attempts, extract(epoch FROM started_at - run_at) * 1000 AS late_ms FROM ${schema.schema}.conveyor_jobs WHERE id = ANY($1)`,
      [ids],
    );
    expect(rows.filter((r) => r.attempts !== 1 || Number(r.late_ms) > lateMs || Number(r.late_ms) < 0)).toEqual([]);
  }

  it('keeps both builds working on one schema, each job run once and on time, and lets the previous build start again', async () => {
    if (!previous) return console.warn('rolling upgrade not tried: no git history to check the previous build out of');
    const old = await start(previous.root, 'previous');
    // Alone, the previous build runs jobs due at once. Its due timers could fire before the database's clock reached a
    // due time (this build waits out its clock estimate's uncertainty), so a scheduled job it runs alone may wait for
    // its fallback poll: the scheduled jobs below are submitted while this build runs workers too.
    const alone = [(await post<JobAnswer>(old, '/jobs', email('alone now', 0))).id];
    await expectRunOnceWhenDue(alone, ON_TIME_MS);

    const current = await start(undefined, 'current');
    const { rows } = await pool.query<{ id: number }>(`SELECT max(id) AS id FROM ${schema.schema}.conveyor_migrations`);
    expect(rows[0].id).toBe(MIGRATIONS[MIGRATIONS.length - 1].id);
    expect((await fetch(`${old.baseUrl}/health/ready`)).status).toBe(200);

    const mixed = [
      ...(await submitMix(old, 'via previous', 'upgrade-a', [current], 0)),
      ...(await submitMix(current, 'via current', 'upgrade-b', [old], 400)),
    ];
    await expectRunOnceWhenDue(mixed, ON_TIME_MS);
    expect((await fetch(`${old.baseUrl}/health/ready`)).status).toBe(200);
    expect((await fetch(`${old.baseUrl}/jobs/${mixed[0]}`)).status).toBe(200);
    expect((await fetch(`${old.baseUrl}/dashboard`)).status).toBe(200);

    // A pause through this build sends a pause notice, which the previous build cannot read: it must go on working and
    // claim nothing from the paused queue (a claim that took the later job would have reached the earlier, paused one),
    // and a resume through the previous build has the job run without waiting for the fallback poll.
    await post(current, '/queues/upgrade-paused/pause', {}, 200);
    const pausedAt = Date.now();
    const paused = (await post<JobAnswer>(old, '/jobs', email('paused', 0, { queue: 'upgrade-paused' }))).id;
    await expectRunOnceWhenDue([(await post<JobAnswer>(old, '/jobs', email('beside the paused', 0))).id], ON_TIME_MS);
    const { rows: held } = await pool.query<{ status: string }>(`SELECT status FROM ${schema.schema}.conveyor_jobs WHERE id = $1`, [
      paused,
    ]);
    expect(held[0].status).toBe('PENDING');
    await post(old, '/queues/upgrade-paused/resume', {}, 200);
    await expectRunOnceWhenDue([paused], Date.now() - pausedAt + ON_TIME_MS);
    expect((await fetch(`${old.baseUrl}/health/ready`)).status).toBe(200);

    // Only the previous build runs workers: what it runs on time it heard of through this build's notifications.
    await current.stop();
    const api = await start(undefined, 'current-api', { RUN_WORKERS: 'false' });
    const heard = [(await post<JobAnswer>(api, '/jobs', email('heard now', 0))).id];
    await expectRunOnceWhenDue(heard, ON_TIME_MS);

    // Going back: the previous build starts on the migrated schema and works.
    await api.stop();
    await old.stop();
    const back = await start(previous.root, 'previous-again');
    await expectRunOnceWhenDue([(await post<JobAnswer>(back, '/jobs', email('back now', 0))).id], ON_TIME_MS);
  }, 180_000);
});
