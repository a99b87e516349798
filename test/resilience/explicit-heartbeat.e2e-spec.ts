import { Job, JobContext, JobHandler, JobHandlerHost, JobStatus } from '@conveyor/core';
import { WorkerPool } from '@conveyor/core/consumer/worker-pool.service';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Lets the test drive a long job's heartbeats one at a time. */
const control = {
  beat: null as null | (() => void),
  results: [] as Array<'ok' | string>,
  finish: null as null | (() => void),
};

@JobHandler('LONG_JOB')
class LongJobHandler extends JobHandlerHost {
  async handle(_job: Job, ctx: JobContext): Promise<string> {
    for (;;) {
      const next = await new Promise<'beat' | 'finish'>((resolve) => {
        control.beat = () => resolve('beat');
        control.finish = () => resolve('finish');
      });
      if (next === 'finish') return 'done';
      try {
        await ctx.heartbeat();
        control.results.push('ok');
      } catch (err) {
        control.results.push((err as Error).name);
        throw err;
      }
    }
  }
}

/** A long job extends its own lease with ctx.heartbeat(), and learns at once when its claim is gone. */
describe('explicit heartbeat', () => {
  let schema: TestSchema;
  let t: TestApp;
  const leaseOf = async (id: string) =>
    (await t.sql.query(`SELECT locked_until, lease_token FROM ${t.jobsTable} WHERE id = $1`, [id])).rows[0];

  beforeAll(async () => {
    schema = await createTestSchema('heartbeat');
    // Automatic heartbeats are far apart here, so every extension seen comes from the handler.
    t = await createTestApp({
      schema: schema.schema,
      providers: [LongJobHandler],
      engine: { leaseMs: 60_000, heartbeatIntervalMs: 30_000 },
      http: false,
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  it('extends the lease on demand', async () => {
    control.results = [];
    const job = await t.jobs.enqueue('LONG_JOB', {});
    await waitFor(() => control.beat !== null && (t.jobs.get(job.id).then((j) => j.status === JobStatus.RUNNING) as Promise<boolean>));
    const before = await leaseOf(job.id);
    control.beat!();
    await waitFor(() => control.results.length === 1);
    const after = await leaseOf(job.id);
    expect(control.results).toEqual(['ok']);
    expect(after.locked_until.getTime()).toBeGreaterThan(before.locked_until.getTime());
    control.finish!();
    await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.COMPLETED);
  });

  it('throws when the claim was lost, and nothing is written for the lost attempt', async () => {
    control.results = [];
    control.beat = null;
    const job = await t.jobs.enqueue('LONG_JOB', {}, { maxAttempts: 3 });
    await waitFor(async () => control.beat !== null && (await t.jobs.get(job.id)).status === JobStatus.RUNNING);
    // The sweeper rescued it elsewhere: the token this worker holds is no longer the row's.
    await t.sql.query(
      `UPDATE ${t.jobsTable} SET status = 'RETRYING', lease_token = NULL, locked_by = NULL, run_at = now() + interval '1 hour' WHERE id = $1`,
      [job.id],
    );
    const rescued = (await t.sql.query(`SELECT * FROM ${t.jobsTable} WHERE id = $1`, [job.id])).rows[0];
    control.beat!();
    await waitFor(() => control.results.length === 1);
    expect(control.results).toEqual(['LeaseLostError']);
    // Give the worker every chance to (wrongly) write: wait until it has let go of the job.
    await waitFor(() => t.app.get(WorkerPool).stats().running === 0);
    const after = (await t.sql.query(`SELECT * FROM ${t.jobsTable} WHERE id = $1`, [job.id])).rows[0];
    expect(after).toEqual(rescued);
  });
});
