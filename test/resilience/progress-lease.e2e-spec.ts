import { Job, JobContext, JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

const LEASE = { leaseMs: 1500, heartbeatIntervalMs: 400 };

/** What the busy handler saw: how many reports it made, and whether its attempt was given up. */
const seen = { reports: 0, aborted: [] as string[] };

/**
 * Reports progress back to back for several leases. Each report holds the job's row locked until it commits, so the
 * heartbeat round (which passes locked rows by) finds the row locked in a good share of its rounds.
 */
@JobHandler('BUSY_PROGRESS', { maxAttempts: 3 })
class BusyProgressHandler extends JobHandlerHost {
  async handle(job: Job, ctx: JobContext): Promise<string> {
    const until = performance.now() + 4 * LEASE.leaseMs;
    while (performance.now() < until) {
      if (ctx.signal.aborted) {
        seen.aborted.push(`attempt ${job.attempts}: ${(ctx.signal.reason as Error).name}`);
        throw ctx.signal.reason;
      }
      await ctx.progress({ percent: 50 });
      seen.reports++;
    }
    return 'done';
  }
}

/** A job that reports progress often keeps its lease, though the heartbeat round often finds its row locked. */
describe('progress reports and the lease', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('progress_lease');
    t = await createTestApp({ schema: schema.schema, providers: [BusyProgressHandler], engine: LEASE, http: false });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('runs a job reporting progress back to back once, its lease kept all along', async () => {
    const job = await t.jobs.enqueue('BUSY_PROGRESS', {});
    const done = await waitFor(
      async () => {
        const j = await t.jobs.get(job.id);
        return j.status === JobStatus.COMPLETED || j.status === JobStatus.DEAD ? j : null;
      },
      { timeoutMs: 30_000, message: 'the job to end' },
    );
    expect(seen.aborted).toEqual([]);
    expect(done).toMatchObject({ status: JobStatus.COMPLETED, attempts: 1, errors: [] });
    expect(seen.reports).toBeGreaterThan(100);
  });
});
