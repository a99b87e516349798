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

/** Lets the test drive a job's progress reports one at a time. */
const reporting = {
  report: null as null | (() => void),
  results: [] as string[],
  finish: null as null | (() => void),
};

@JobHandler('REPORTING_JOB')
class ReportingJobHandler extends JobHandlerHost {
  async handle(_job: Job, ctx: JobContext): Promise<string> {
    for (;;) {
      const next = await new Promise<'report' | 'finish'>((resolve) => {
        reporting.report = () => resolve('report');
        reporting.finish = () => resolve('finish');
      });
      if (next === 'finish') return 'done';
      await ctx.progress(reporting.results.length + 1);
      reporting.results.push('ok');
    }
  }
}

/** Lets the test hold an overrunning attempt until the job's next attempt has started. */
const overrun = {
  secondStarted: null as null | (() => void),
  lateReports: [] as string[],
  lateDone: null as null | (() => void),
};

/** Its first attempt ignores its timeout and reports late, while the second attempt runs in the same process. */
@JobHandler('OVERRUN', { timeout: 1000, maxAttempts: 3, backoff: { baseMs: 10, factor: 1, maxMs: 10, jitter: 0 } })
class OverrunHandler extends JobHandlerHost {
  async handle(job: Job, ctx: JobContext): Promise<string> {
    if (job.attempts === 1) {
      await new Promise<void>((resolve) => (overrun.secondStarted = resolve));
      for (const report of [() => ctx.heartbeat(), () => ctx.progress(50)]) {
        await report().then(
          () => overrun.lateReports.push('ok'),
          (err: Error) => overrun.lateReports.push(err.name),
        );
      }
      overrun.lateDone!();
      return 'first';
    }
    const late = new Promise<void>((resolve) => (overrun.lateDone = resolve));
    overrun.secondStarted!();
    await late;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    return 'second';
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
      providers: [LongJobHandler, ReportingJobHandler, OverrunHandler],
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

  it('extends the lease with each progress report, never shortening it', async () => {
    reporting.results = [];
    const job = await t.jobs.enqueue('REPORTING_JOB', {});
    await waitFor(async () => reporting.report !== null && (await t.jobs.get(job.id)).status === JobStatus.RUNNING);
    const before = await leaseOf(job.id);
    reporting.report!();
    await waitFor(() => reporting.results.length === 1);
    const after = await leaseOf(job.id);
    expect(after.locked_until.getTime()).toBeGreaterThan(before.locked_until.getTime());
    // A lease longer than the engine's (an HTTP worker may ask for one) is kept.
    const far = new Date(Date.now() + 3_600_000);
    await t.sql.query(`UPDATE ${t.jobsTable} SET locked_until = $2 WHERE id = $1`, [job.id, far]);
    reporting.report!();
    await waitFor(() => reporting.results.length === 2);
    expect((await leaseOf(job.id)).locked_until.getTime()).toBe(far.getTime());
    reporting.finish!();
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

  it("a late report from an attempt that overran its timeout fails, and leaves the job's next attempt running", async () => {
    const job = await t.jobs.enqueue('OVERRUN', {});
    await waitFor(async () => (await t.jobs.get(job.id)).status === JobStatus.COMPLETED, { message: 'the second attempt to complete' });
    expect(overrun.lateReports).toEqual(['LeaseLostError', 'LeaseLostError']);
    const done = await t.jobs.get(job.id);
    expect({ attempts: done.attempts, result: done.result, errors: done.errors.map((e) => e.kind) }).toEqual({
      attempts: 2,
      result: 'second',
      errors: ['timeout'],
    });
  });
});
