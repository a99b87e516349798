import { JobStatus } from '@conveyor/core';
import type { TestApp } from '../support/test-app';
import type { TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';
import { spawnWorker, SpawnedWorker } from '../support/worker-processes';
import { CrashControl, startCrashControl } from './support/crash-control';

/**
 * A worker process whose handler returns a 50 MB string: stored as the result, served back, nothing held up. Storing
 * it takes the database seconds and the worker's event loop one or two (docs/handlers.md), so the lease here is the
 * default's order, not the crash specs' 2 s: what is under test is the write, not lapsed leases.
 */
describe('a handler that returns a huge result', () => {
  const url = process.env.CONVEYOR_TEST_DATABASE_URL!;
  let schema: TestSchema;
  let crash: CrashControl;
  let control: TestApp;
  let worker: SpawnedWorker | undefined;

  beforeAll(async () => {
    crash = await startCrashControl('hugeresult');
    ({ schema, control } = crash);
  });

  afterAll(async () => {
    if (worker && worker.proc.exitCode === null) worker.proc.kill('SIGTERM');
    await worker?.exited;
    await crash?.close();
  });

  it('a 50 MB result is stored whole, and the jobs claimed with it complete', async () => {
    worker = spawnWorker({
      url,
      schema: schema.schema,
      http: true,
      engine: { leaseMs: 20_000, heartbeatIntervalMs: 1000, maintenanceIntervalMs: 250, pollIntervalMs: 100, workerId: 'huge' },
      appName: 'huge',
    });
    await worker.ready;
    const huge = await control.jobs.enqueue('TEST_RECORD', { resultChars: 50_000_000 });
    const small = await Promise.all([1, 2, 3, 4, 5].map(() => control.jobs.enqueue('TEST_RECORD', {})));
    const done = await waitFor(
      async () => {
        const { rows } = await control.sql.query<{ status: string; attempts: number; chars: number | null }>(
          `SELECT status, attempts, length(result #>> '{}') AS chars FROM ${control.jobsTable} WHERE id = $1`,
          [huge.id],
        );
        return rows[0].status === JobStatus.COMPLETED || rows[0].status === JobStatus.DEAD ? rows[0] : null;
      },
      { timeoutMs: 60_000, message: 'the job with the huge result to end' },
    );
    expect(done).toEqual({ status: JobStatus.COMPLETED, attempts: 1, chars: 50_000_000 });
    // The jobs beside it end in their own time (their outcomes may go in a later batch): each once, completed.
    const smallEnds = await waitFor(
      async () => {
        const jobs = await Promise.all(small.map((s) => control.jobs.get(s.id)));
        return jobs.every((j) => j.status === JobStatus.COMPLETED || j.status === JobStatus.DEAD) ? jobs : null;
      },
      { timeoutMs: 30_000, message: 'the jobs beside it to end' },
    );
    for (const j of smallEnds) expect(j).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1 });
    // The write took as long as it needed on a healthy connection: not abandoned at a statement deadline (nor a claim
    // sent behind it), so not sent twice.
    expect(worker.output()).not.toMatch(/did not answer within|Worker connection lost|Stale outcome/);
    const res = await fetch(`http://127.0.0.1:${worker.port()}/jobs/${huge.id}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { result: string }).result).toHaveLength(50_000_000);
  }, 120_000);
});
