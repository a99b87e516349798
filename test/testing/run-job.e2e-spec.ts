import { IsEmail, IsString } from 'class-validator';
import {
  Job,
  JobCancelledError,
  JobContext,
  JobHandler,
  JobHandlerHost,
  JobStatus,
  JobValidationError,
  LeaseLostError,
  WorkerShutdownError,
} from '@conveyor/core';
import { drainQueue, runJob } from '@conveyor/core/testing';
import { createTestApp, TestApp } from '../support/test-app';
import { createTestSchema, TestSchema } from '../support/test-database';
import { waitFor } from '../support/wait-for';

/** Never settles, whatever its signal says; records the reason the signal fired with, by job. */
class IgnoringHandler extends JobHandlerHost {
  static readonly abortedWith = new Map<string, unknown>();

  handle(job: Job, context: JobContext): Promise<never> {
    context.signal.addEventListener('abort', () => IgnoringHandler.abortedWith.set(job.id, context.signal.reason));
    return new Promise(() => undefined);
  }
}

@JobHandler('OVERRUNS', { timeout: 100, maxAttempts: 1 })
class OverrunningHandler extends IgnoringHandler {}

@JobHandler('IGNORES_CANCEL')
class IgnoresCancelHandler extends IgnoringHandler {}

@JobHandler('STOPS_MID_RUN')
class StopsMidRunHandler extends IgnoringHandler {}

/** Carries on after a failed heartbeat, as a handler that treats it as advisory may. */
@JobHandler('SWALLOWS_REPORT_ERRORS')
class SwallowsReportErrorsHandler extends JobHandlerHost {
  async handle(_job: Job, context: JobContext): Promise<string> {
    await context.heartbeat().catch(() => undefined);
    return 'carried on';
  }
}

@JobHandler('COUNTS_IN_BIGINT')
class BigIntHandler extends JobHandlerHost {
  handle(): { total: bigint } {
    return { total: 10n };
  }
}

class InvoicePayload {
  @IsString() invoiceId: string;
  @IsEmail() to: string;
}

/** Counts its runs: a payload its class refuses must never reach it. */
@JobHandler('SENDS_INVOICE', { payload: InvoicePayload })
class InvoiceHandler extends JobHandlerHost<InvoicePayload> {
  static runs = 0;

  handle(job: Job<InvoicePayload>): { to: string } {
    InvoiceHandler.runs++;
    return { to: job.payload.to };
  }
}

/** Reads a Date from its payload, as a test may hand it one. */
@JobHandler('READS_DUE_DATE', { maxAttempts: 1 })
class DueDateHandler extends JobHandlerHost<{ due: Date }> {
  handle(job: Job<{ due: Date }>): { year: number } {
    return { year: job.payload.due.getUTCFullYear() };
  }
}

/** Reports progress with a Date and an undefined field in its data, and returns the job's progress field. */
@JobHandler('REPORTS_A_DATE', { maxAttempts: 1 })
class ReportsADateHandler extends JobHandlerHost {
  async handle(job: Job, ctx: JobContext): Promise<{ progressBefore: unknown }> {
    const progressBefore = job.progress;
    await ctx.progress({ percent: 50, data: { at: new Date('2030-01-01T00:00:00Z'), note: undefined } });
    return { progressBefore };
  }
}

/** Takes longer than the engine's default timeout that the app below sets; sets no option of its own. */
@JobHandler('TAKES_ITS_TIME')
class TakesItsTimeHandler extends JobHandlerHost {
  handle(_job: Job, context: JobContext): Promise<string> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve('done'), 1_000);
      context.signal.addEventListener('abort', () => clearTimeout(timer));
    });
  }
}

/** Keeps its context, so the test can report through it once the attempt is over. */
@JobHandler('KEEPS_ITS_CONTEXT')
class KeepsItsContextHandler extends JobHandlerHost {
  static context: JobContext | undefined;

  handle(_job: Job, context: JobContext): string {
    KeepsItsContextHandler.context = context;
    return 'returned';
  }
}

/** Reports without `await` right after it returned, while its outcome is on its way; records how each report ended. */
@JobHandler('REPORTS_AFTER_RETURNING')
class ReportsAfterReturningHandler extends JobHandlerHost {
  static readonly reports: Promise<unknown>[] = [];

  handle(_job: Job, context: JobContext): string {
    setImmediate(() => {
      const settled = (call: () => Promise<void>) =>
        call().then(
          () => 'resolved',
          (err: unknown) => err,
        );
      ReportsAfterReturningHandler.reports.push(
        settled(() => context.progress(50)),
        settled(() => context.heartbeat()),
      );
    });
    return 'returned';
  }
}

/** runJob says what the engine does: the same handler, run by both, ends the same way. */
describe('runJob agrees with the engine', () => {
  let schema: TestSchema;
  let t: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema('run_job');
    t = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [
        OverrunningHandler,
        IgnoresCancelHandler,
        BigIntHandler,
        InvoiceHandler,
        DueDateHandler,
        ReportsADateHandler,
        KeepsItsContextHandler,
        ReportsAfterReturningHandler,
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
    await schema?.drop();
  });

  const stored = async (id: string) =>
    (await t.sql.query(`SELECT status, result, last_error, errors, progress FROM ${t.jobsTable} WHERE id = $1`, [id])).rows[0];

  it('an attempt still running at its timeout fails with JobTimeoutError, even when the handler ignores its signal', async () => {
    const { id } = await t.jobs.enqueue('OVERRUNS', {});
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const row = await stored(id);
    expect(row).toMatchObject({ status: JobStatus.DEAD, errors: [{ kind: 'timeout' }] });

    const run = await runJob(new OverrunningHandler(), {});
    expect(run.kind).toBe('dead');
    const error = (run as { error: Error }).error;
    expect(`${error.name}: ${error.message}`).toBe(row.last_error);
  });

  it.each([
    ['its payload class refuses', { invoiceId: 'inv-1', to: 'not-an-address', extra: 1 }],
    ['has an undefined field', { invoiceId: 'inv-1', to: 'ada@example.com', cc: undefined }],
    ['holds a NUL character', { invoiceId: 'inv-\u0000', to: 'ada@example.com' }],
    ['holds a BigInt', { invoiceId: 10n, to: 'ada@example.com' }],
  ])('a payload that %s is refused by both, with the same problems, and the handler never runs', async (_what, payload) => {
    const submitted = await t.jobs.enqueue('SENDS_INVOICE', payload).catch((err: unknown) => err);
    expect(submitted).toBeInstanceOf(JobValidationError);
    const tested = await runJob(new InvoiceHandler(), payload as unknown as InvoicePayload).catch((err: unknown) => err);
    expect(tested).toBeInstanceOf(JobValidationError);
    expect(tested).toMatchObject({ message: (submitted as Error).message, details: (submitted as JobValidationError).details });
    expect(InvoiceHandler.runs).toBe(0);
  });

  it('the handler gets the payload as stored, through JSON: a Date is a string to it in both', async () => {
    const due = new Date('2030-01-01T00:00:00Z');
    const { id } = await t.jobs.enqueue('READS_DUE_DATE', { due });
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const row = await stored(id);
    expect(row).toMatchObject({ status: JobStatus.DEAD, last_error: expect.stringContaining('TypeError') });

    const run = await runJob(new DueDateHandler(), { due });
    expect(run.kind).toBe('dead');
    const error = (run as { error: Error }).error;
    expect(`${error.name}: ${error.message}`).toBe(row.last_error);
  });

  it('progress is recorded as stored, and the job starts with no progress, as in the engine', async () => {
    const { id } = await t.jobs.enqueue('REPORTS_A_DATE', {});
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const row = await stored(id);
    expect(row).toMatchObject({ status: JobStatus.COMPLETED, result: { progressBefore: null } });

    const run = await runJob(new ReportsADateHandler(), {});
    expect(run).toMatchObject({ kind: 'completed', result: row.result });
    expect(run.progress).toEqual([row.progress]);
  });

  it("a handler without options runs with the app's engine defaults (timeout, attempts) when runJob is given them", async () => {
    const engine = { defaultTimeoutMs: 100, defaultMaxAttempts: 1 };
    const app = await createTestApp({ schema: schema.schema, http: false, providers: [TakesItsTimeHandler], engine });
    let id: string;
    try {
      ({ id } = await app.jobs.enqueue('TAKES_ITS_TIME', {}));
      await drainQueue(app.app, { timeoutMs: 10_000 });
    } finally {
      await app.close();
    }
    const row = await stored(id);
    expect(row).toMatchObject({ status: JobStatus.DEAD, errors: [{ kind: 'timeout' }] });

    const run = await runJob(new TakesItsTimeHandler(), {}, { engine });
    expect(run.kind).toBe('dead');
    const error = (run as { error: Error }).error;
    expect(`${error.name}: ${error.message}`).toBe(row.last_error);
  });

  it('a report once the attempt is over rejects with LeaseLostError, after the check of what it reports', async () => {
    const late = async (context: JobContext) => ({
      progress: await context.progress(50).catch((err: unknown) => err),
      heartbeat: await context.heartbeat().catch((err: unknown) => err),
      bad: await context.progress(101).catch((err: unknown) => err),
    });
    const { id } = await t.jobs.enqueue('KEEPS_ITS_CONTEXT', {});
    await drainQueue(t.app, { timeoutMs: 10_000 });
    expect(await stored(id)).toMatchObject({ status: JobStatus.COMPLETED, result: 'returned' });
    const refused = { progress: expect.any(LeaseLostError), heartbeat: expect.any(LeaseLostError), bad: expect.any(JobValidationError) };
    expect(await late(KeepsItsContextHandler.context!)).toEqual(refused);
    expect(await stored(id)).toMatchObject({ status: JobStatus.COMPLETED, progress: null });

    const run = await runJob(new KeepsItsContextHandler(), {});
    expect(run).toMatchObject({ kind: 'completed', result: 'returned' });
    expect(await late(KeepsItsContextHandler.context!)).toEqual(refused);
    expect(run.progress).toEqual([]);
  });

  it('a report right after the handler returned, before its outcome is written, rejects as a later one does', async () => {
    const { reports } = ReportsAfterReturningHandler;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.jobs.enqueue('REPORTS_AFTER_RETURNING', {})).id);
    await drainQueue(t.app, { timeoutMs: 10_000 });
    await waitFor(() => reports.length === 2 * ids.length, { message: 'every report to be made' });
    expect(await Promise.all(reports.splice(0))).toEqual(Array(2 * ids.length).fill(expect.any(LeaseLostError)));
    for (const id of ids) expect(await stored(id)).toMatchObject({ status: JobStatus.COMPLETED, progress: null });

    const run = await runJob(new ReportsAfterReturningHandler(), {});
    await waitFor(() => reports.length === 2, { message: "runJob's reports to be made" });
    expect(await Promise.all(reports.splice(0))).toEqual([expect.any(LeaseLostError), expect.any(LeaseLostError)]);
    expect(run.progress).toEqual([]);
  });

  it('a result JSON cannot hold completes the job with no result, and says why', async () => {
    const { id } = await t.jobs.enqueue('COUNTS_IN_BIGINT', {});
    await drainQueue(t.app, { timeoutMs: 10_000 });
    const row = await stored(id);
    expect(row).toMatchObject({ status: JobStatus.COMPLETED, result: null, last_error: expect.stringContaining('BigInt') });

    expect(await runJob(new BigIntHandler(), {})).toMatchObject({ kind: 'completed', result: null, lastError: row.last_error });
  });

  it('an operator cancel ends the job CANCELLED at once, though the handler ignores its signal', async () => {
    const { id } = await t.jobs.enqueue('IGNORES_CANCEL', {});
    await waitFor(async () => (await t.jobs.get(id)).status === JobStatus.RUNNING, { message: 'the job to run' });
    await t.jobs.cancel(id);
    const reason = await waitFor(() => IgnoringHandler.abortedWith.get(id), { message: 'the handler to be told' });
    expect(reason).toBeInstanceOf(JobCancelledError);
    await drainQueue(t.app, { timeoutMs: 10_000 });
    expect(await stored(id)).toMatchObject({ status: JobStatus.CANCELLED, result: null });

    const controller = new AbortController();
    const running = runJob(new IgnoresCancelHandler(), {}, { signal: controller.signal });
    controller.abort(reason);
    expect(await running).toMatchObject({ kind: 'cancelled', error: reason });
  });

  it('a worker stopping past its grace period hands the job back; given its reason, runJob says so too', async () => {
    const stopping = await createTestApp({
      schema: schema.schema,
      http: false,
      providers: [StopsMidRunHandler],
      engine: { shutdownGraceMs: 100 },
    });
    let id: string;
    try {
      ({ id } = await stopping.jobs.enqueue('STOPS_MID_RUN', {}));
      await waitFor(async () => (await t.jobs.get(id)).status === JobStatus.RUNNING, { message: 'the job to run' });
    } finally {
      await stopping.close();
    }
    const reason = IgnoringHandler.abortedWith.get(id);
    expect(reason).toBeInstanceOf(WorkerShutdownError);
    expect(await t.jobs.get(id)).toMatchObject({ status: JobStatus.PENDING, attempts: 0 });

    const controller = new AbortController();
    const running = runJob(new StopsMidRunHandler(), {}, { signal: controller.signal });
    controller.abort(reason);
    expect(await running).toMatchObject({ kind: 'handed-back', error: reason });
  });

  it('a heartbeat that finds the claim gone (LeaseLostError) ends the attempt with nothing stored, however the handler goes on', async () => {
    const run = await runJob(new SwallowsReportErrorsHandler(), {}, { heartbeat: () => Promise.reject(new LeaseLostError('a-job')) });
    expect(run).toMatchObject({ kind: 'lease-lost', error: expect.any(LeaseLostError) });
    const other = await runJob(new SwallowsReportErrorsHandler(), {}, { heartbeat: () => Promise.reject(new Error('network')) });
    expect(other).toMatchObject({ kind: 'completed', result: 'carried on' });
  });

  it('an attempt whose claim is lost (LeaseLostError) stores nothing', async () => {
    const controller = new AbortController();
    const running = runJob(new IgnoresCancelHandler(), {}, { signal: controller.signal });
    const reason = new LeaseLostError('a-job');
    controller.abort(reason);
    expect(await running).toMatchObject({ kind: 'lease-lost', error: reason });
  });
});
