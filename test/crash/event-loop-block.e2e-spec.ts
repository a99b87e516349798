import { JobStatus } from '@conveyor/core';
import { invocationsTable } from '../support/recording-handler';
import type { TestApp } from '../support/test-app';
import type { TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';
import { CRASH_ENGINE, CrashControl, startCrashControl } from './support/crash-control';

/**
 * A handler that spins for two leases on a worker process: nothing else in that process runs meanwhile (no heartbeat),
 * so the leader rescues the job; the spinning attempt's outcome must then be refused.
 */
describe('a handler that blocks its event loop for longer than the lease', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  const LEASE_MS = CRASH_ENGINE.leaseMs;
  let schema: TestSchema;
  let crash: CrashControl;
  let control: TestApp;
  let worker: SpawnedWorker | undefined;

  beforeAll(async () => {
    crash = await startCrashControl('loopblock');
    ({ schema, control } = crash);
  });

  afterAll(async () => {
    if (worker && worker.proc.exitCode === null) worker.proc.kill('SIGTERM');
    await worker?.exited;
    await crash?.close();
  });

  const ended = (id: string) =>
    waitFor(
      async () => {
        const j = await control.jobs.get(id);
        return ([JobStatus.COMPLETED, JobStatus.DEAD, JobStatus.CANCELLED] as JobStatus[]).includes(j.status) ? j : null;
      },
      { timeoutMs: 60_000, message: `job ${id} to end` },
    );
  const invocations = async (id: string) =>
    (await control.sql.query(`SELECT worker, attempt FROM ${invocationsTable(schema.schema)} WHERE job_id = $1 ORDER BY at`, [id])).rows;

  it('each attempt loses its lease and its late result is fenced; the job ends DEAD; the worker then keeps a long lease', async () => {
    worker = spawnWorker({ url, schema: schema.schema, engine: { ...CRASH_ENGINE, workerId: 'blocker' }, appName: 'blocker' });
    await worker.ready;
    const blocker = await control.jobs.enqueue('TEST_RECORD', { busyWaitMs: 2 * LEASE_MS, result: { blocked: true } }, { maxAttempts: 2 });
    const dead = await ended(blocker.id);
    expect(dead).toMatchObject({ status: JobStatus.DEAD, attempts: 2, result: null });
    expect(dead.errors.map((e) => e.kind)).toEqual(['lease-expired', 'lease-expired']);
    expect(await invocations(blocker.id)).toEqual([
      { worker: 'blocker', attempt: 1 },
      { worker: 'blocker', attempt: 2 },
    ]);
    // Both late results were refused, and nothing wrote to the row after the second rescue.
    await waitFor(() => (worker!.output().match(/Stale outcome ignored/g) ?? []).length >= 2, {
      message: 'both late outcomes to be refused',
    });
    const again = await control.jobs.get(blocker.id);
    expect(again).toMatchObject({ status: JobStatus.DEAD, result: null, lastError: dead.lastError });

    // The instance recovered: its heartbeats keep a job three leases long, which runs once.
    const long = await control.jobs.enqueue('TEST_RECORD', { sleepMs: 3 * LEASE_MS });
    expect(await ended(long.id)).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1, errors: [] });
    expect(await invocations(long.id)).toEqual([{ worker: 'blocker', attempt: 1 }]);
  }, 120_000);
});
