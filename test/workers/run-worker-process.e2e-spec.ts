import { JobStatus } from '@conveyor/core';
import { LeaderElection } from '@conveyor/core/maintenance/leader-election.service';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { HttpWorkerPayload } from './support/http-worker-payload';
import { HttpWorkerProcess, spawnHttpWorker } from './support/spawn-http-worker';

const TYPE = 'EXT_PROC';

/**
 * `runWorker` in separate Node processes next to the service, talking to it only over HTTP: they drain an
 * external type, failures are retried, and a worker killed mid-job loses it to the lease sweeper, after
 * which another worker finishes it. The service runs no in-process workers; it leads maintenance.
 */
describe('runWorker in worker processes', () => {
  let schema: TestSchema;
  let t: TestApp;
  const workers: HttpWorkerProcess[] = [];

  const spawn = async (queue: string, workerId: string, extra: { concurrency?: number; leaseMs?: number; clockOffsetMs?: number } = {}) => {
    const w = spawnHttpWorker({ baseUrl: t.baseUrl, queue, workerId, ...extra });
    workers.push(w);
    await w.ready;
    return w;
  };
  const enqueue = async (queue: string, payload: HttpWorkerPayload, maxAttempts = 3) =>
    (await t.jobs.enqueue(TYPE, payload, { queue, maxAttempts })).id;
  const statuses = async (queue: string) =>
    (
      await t.sql.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM ${t.jobsTable} WHERE queue = $1 GROUP BY status`,
        [queue],
      )
    ).rows;

  beforeAll(async () => {
    schema = await createTestSchema('run_worker_proc');
    t = await createTestApp({
      schema: schema.schema,
      listen: true,
      engine: {
        runWorkers: false,
        externalTypes: [TYPE],
        maintenanceIntervalMs: 200,
        backoff: { baseMs: 50, factor: 2, maxMs: 1000, jitter: 0 },
      },
    });
    await waitFor(() => t.app.get(LeaderElection).isLeader, { message: 'the service to lead maintenance' });
  });

  afterAll(async () => {
    for (const w of workers) if (w.proc.exitCode === null && w.proc.signalCode === null) w.proc.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await t?.close();
    await schema?.drop();
  });

  it('drains an external type to COMPLETED with two worker processes, retrying failed attempts', async () => {
    const queue = 'proc-drain';
    const ok = await Promise.all(Array.from({ length: 24 }, (_, i) => enqueue(queue, { echo: i, sleepMs: 20 })));
    const flaky = await Promise.all([enqueue(queue, { failTimes: 1, echo: 'flaky-1' }), enqueue(queue, { failTimes: 2, echo: 'flaky-2' })]);
    const a = await spawn(queue, 'http-a', { concurrency: 3 });
    const b = await spawn(queue, 'http-b', { concurrency: 3 });

    await waitFor(
      async () => {
        const rows = await statuses(queue);
        return rows.length === 1 && rows[0].status === JobStatus.COMPLETED && rows[0].n === 26;
      },
      { timeoutMs: 30_000, message: 'every job of the queue to be COMPLETED' },
    );

    for (const id of ok) {
      const job = await t.jobs.get(id);
      expect(job).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1, errors: [] });
      expect(['http-a', 'http-b']).toContain((job.result as { handledBy: string }).handledBy);
    }
    for (const [i, id] of flaky.entries()) {
      const job = await t.jobs.get(id);
      expect(job).toMatchObject({
        status: JobStatus.COMPLETED,
        attempts: i + 2,
        result: expect.objectContaining({ echo: `flaky-${i + 1}`, attempt: i + 2 }),
      });
      expect(job.errors.map((e) => [e.kind, e.error])).toEqual(
        Array.from({ length: i + 1 }, (_, n) => ['failed', `TypeError: attempt ${n + 1} failed`]),
      );
      for (const entry of job.errors) expect(['http-a', 'http-b']).toContain(entry.worker);
    }
    // Each job ran once per attempt, across both processes.
    const starts = [...a.events(), ...b.events()].filter((e) => e.event === 'started');
    expect(starts).toHaveLength(24 + 2 + 3);
    expect(new Set(starts.map((e) => `${e.id}:${e.attempt}`)).size).toBe(starts.length);

    a.proc.kill('SIGTERM');
    b.proc.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  });

  it('rescues the job of a worker process killed mid-job after its lease, and another worker completes it', async () => {
    const queue = 'proc-kill';
    const doomed = await spawn(queue, 'http-doomed', { leaseMs: 1_500 });
    const id = await enqueue(queue, { blockOnAttempt: 1, echo: 'survived' });
    await doomed.event((e) => e.event === 'started' && e.id === id);
    expect(await t.jobs.get(id)).toMatchObject({ status: JobStatus.RUNNING, lockedBy: 'http-doomed' });
    doomed.proc.kill('SIGKILL');
    expect(await doomed.exited).toBe('SIGKILL');

    const rescuer = await spawn(queue, 'http-rescuer', { leaseMs: 1_500 });
    const done = await waitFor(
      async () => {
        const job = await t.jobs.get(id);
        return job.status === JobStatus.COMPLETED ? job : null;
      },
      { timeoutMs: 20_000, message: 'the killed worker’s job to be rescued and completed' },
    );
    expect(done).toMatchObject({ attempts: 2, result: { handledBy: 'http-rescuer', attempt: 2, echo: 'survived' } });
    expect(done.errors).toEqual([expect.objectContaining({ kind: 'lease-expired', worker: 'http-doomed', attempt: 1 })]);
    expect(rescuer.events().filter((e) => e.event === 'started' && e.id === id)).toEqual([{ event: 'started', id, attempt: 2 }]);

    rescuer.proc.kill('SIGTERM');
    expect(await rescuer.exited).toBe(0);
  });

  it("retries a RetryLaterError's delay from the service's clock, whichever way the worker's clock is off", async () => {
    const behind = await spawn('proc-skew-behind', 'http-behind', { clockOffsetMs: -600_000 });
    const ahead = await spawn('proc-skew-ahead', 'http-ahead', { clockOffsetMs: 600_000 });
    const ids = [await enqueue('proc-skew-behind', { retryLaterMs: 60_000 }), await enqueue('proc-skew-ahead', { retryLaterMs: 60_000 })];
    for (const id of ids) {
      const row = await waitFor(
        async () =>
          (
            await t.sql.query<{ status: string; snoozes: number; due_in_ms: number }>(
              `SELECT status, snoozes, (EXTRACT(EPOCH FROM run_at - now()) * 1000)::float8 AS due_in_ms FROM ${t.jobsTable} WHERE id = $1 AND snoozes > 0`,
              [id],
            )
          ).rows[0],
        { message: `job ${id} to be snoozed` },
      );
      // Ten minutes off either way: a retry time by the worker's clock would be due at once, or eleven minutes on.
      expect(row).toMatchObject({ status: 'RETRYING', snoozes: 1 });
      expect(row.due_in_ms).toBeGreaterThan(50_000);
      expect(row.due_in_ms).toBeLessThanOrEqual(60_000);
    }
    for (const w of [behind, ahead]) w.proc.kill('SIGTERM');
    expect(await Promise.all([behind.exited, ahead.exited])).toEqual([0, 0]);
  });
});
