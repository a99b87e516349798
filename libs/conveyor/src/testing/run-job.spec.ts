import { CancelJobError } from '../errors/cancel-job.error';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { PermanentJobError } from '../errors/permanent-job.error';
import { RetryLaterError } from '../errors/retry-later.error';
import { JobContext } from '../handlers/job-context.interface';
import { JobHandler } from '../handlers/job-handler.decorator';
import { JobHandlerHost } from '../handlers/job-handler.host';
import { Job } from '../job/job';
import { runJob } from './run-job';

/** A handler whose behaviour each test chooses. */
class ScriptedHandler extends JobHandlerHost<{ n: number }, unknown> {
  constructor(private readonly script: (job: Job<{ n: number }>, context: JobContext) => unknown) {
    super();
  }

  handle(job: Job<{ n: number }>, context: JobContext): Promise<unknown> {
    return Promise.resolve(this.script(job, context));
  }
}

/** A decorated handler whose every attempt fails: its decorator's settings, not the engine's, decide. */
@JobHandler('SEND_INVOICE', { queue: 'billing', maxAttempts: 8, backoff: { baseMs: 2000, factor: 3, jitter: 0 } })
class FlakyInvoiceHandler extends JobHandlerHost<{ invoiceId: number }> {
  handle(): Promise<unknown> {
    return Promise.reject(new Error('billing is down'));
  }
}

/** Never settles, whatever its signal says; records the reason the signal fired with. */
@JobHandler('STUCK_EXPORT', { timeout: 20, maxAttempts: 2, backoff: { baseMs: 100, jitter: 0 } })
class StuckHandler extends JobHandlerHost {
  abortedWith: unknown;

  handle(_job: Job, context: JobContext): Promise<never> {
    context.signal.addEventListener('abort', () => (this.abortedWith = context.signal.reason));
    return new Promise(() => undefined);
  }
}

/** Settles as `onAbort` says once its signal fires. */
function reactingToAbort(onAbort: (resolve: (value: unknown) => void, reject: (err: unknown) => void) => void): ScriptedHandler {
  return new ScriptedHandler(
    (_job, ctx) => new Promise((resolve, reject) => ctx.signal.addEventListener('abort', () => onAbort(resolve, reject))),
  );
}

describe('runJob', () => {
  it('runs a decorated handler with its @JobHandler settings, as the worker does: type, queue, attempts, backoff', async () => {
    // The engine's defaults would make attempt 5 the last one; the decorator allows 8.
    const fifth = await runJob(new FlakyInvoiceHandler(), { invoiceId: 42 }, { attempt: 5 });
    expect(fifth).toMatchObject({ kind: 'retry', delayMs: 2000 * 3 ** 4 });
    expect(fifth.job).toMatchObject({ type: 'SEND_INVOICE', queue: 'billing', maxAttempts: 8, attempts: 5 });
    expect(await runJob(new FlakyInvoiceHandler(), { invoiceId: 42 }, { attempt: 8 })).toMatchObject({ kind: 'dead' });
    // What the test passes still wins.
    expect(await runJob(new FlakyInvoiceHandler(), { invoiceId: 42 }, { attempt: 2, maxAttempts: 2 })).toMatchObject({ kind: 'dead' });
  });

  it('returns the handler result as completed, with the payload and attempt the handler saw', async () => {
    const run = await runJob(
      new ScriptedHandler((job, ctx) => ({ doubled: job.payload.n * 2, attempt: ctx.attempt })),
      { n: 21 },
      { attempt: 3 },
    );
    expect(run).toMatchObject({ kind: 'completed', result: { doubled: 42, attempt: 3 } });
    expect(run.job.payload).toEqual({ n: 21 });
  });

  it('classifies an ordinary error as a retry with the backoff delay, and as dead on the last attempt', async () => {
    const failing = new ScriptedHandler(() => {
      throw new Error('downstream down');
    });
    const retry = await runJob(failing, { n: 1 }, { attempt: 2, maxAttempts: 3, backoff: { baseMs: 100, factor: 2, jitter: 0 } });
    expect(retry).toMatchObject({ kind: 'retry', delayMs: 200 });
    expect((retry as { error: Error }).error.message).toBe('downstream down');
    expect(await runJob(failing, { n: 1 }, { attempt: 3, maxAttempts: 3 })).toMatchObject({ kind: 'dead' });
  });

  it('classifies a thrown value that throws when asked what it is as a failed attempt, as the engine does', async () => {
    const selfThrowing: object = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw selfThrowing;
        },
      },
    );
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    // Compared by identity only: jest's own comparison of such a value would throw it.
    const outcome = (thrown: object, maxAttempts: number) =>
      runJob(new ScriptedHandler(() => Promise.reject(thrown)), { n: 1 }, { maxAttempts }).then(
        (run) => ({ kind: run.kind, error: (run as { error?: unknown }).error === thrown ? 'as thrown' : 'another' }),
        () => 'rejected',
      );
    for (const thrown of [selfThrowing, revoked]) {
      expect(await outcome(thrown, 1)).toEqual({ kind: 'dead', error: 'as thrown' });
      expect(await outcome(thrown, 2)).toEqual({ kind: 'retry', error: 'as thrown' });
    }
  });

  it('classifies the control errors: permanent, retry-later with its time, cancelled', async () => {
    const at = new Date(Date.now() + 60_000);
    expect(await runJob(new ScriptedHandler(() => Promise.reject(new PermanentJobError('bad input'))), { n: 1 })).toMatchObject({
      kind: 'permanent',
    });
    expect(await runJob(new ScriptedHandler(() => Promise.reject(new RetryLaterError(at))), { n: 1 })).toMatchObject({
      kind: 'retry-later',
      runAt: at,
    });
    expect(await runJob(new ScriptedHandler(() => Promise.reject(new CancelJobError())), { n: 1 })).toMatchObject({ kind: 'cancelled' });
  });

  it("answers a retry-later past year 9999 with the engine's time, the end of 9999", async () => {
    const never = await runJob(new ScriptedHandler(() => Promise.reject(new RetryLaterError(new Date(8.64e15)))), { n: 1 });
    expect(never).toMatchObject({ kind: 'retry-later', runAt: new Date('9999-12-31T23:59:59.999Z') });
  });

  it("takes the app's forRoot options as they are, dataSourceName and all", async () => {
    const forRootOptions = { dataSourceName: 'jobs', defaultMaxAttempts: 1 };
    const failing = new ScriptedHandler(() => Promise.reject(new Error('down')));
    const outcome = await runJob(failing, { n: 1 }, { engine: forRootOptions }).then(
      (run) => run.kind,
      (err: Error) => err.message,
    );
    expect(outcome).toBe('dead');
  });

  it('gives up a retry-later once the snooze cap is reached', async () => {
    const snoozing = new ScriptedHandler(() => Promise.reject(new RetryLaterError(1000)));
    expect(await runJob(snoozing, { n: 1 }, { snoozes: 2, maxSnoozes: 2 })).toMatchObject({ kind: 'dead' });
  });

  it('counts heartbeats, and passes on a heartbeat that rejects as a lost claim would', async () => {
    const beating = new ScriptedHandler(async (_job, ctx) => {
      await ctx.heartbeat();
      await ctx.heartbeat();
      return 'ok';
    });
    expect(await runJob(beating, { n: 1 })).toMatchObject({ kind: 'completed', heartbeats: 2 });
    const lost = await runJob(beating, { n: 1 }, { heartbeat: () => Promise.reject(new Error('claim lost')) });
    expect(lost).toMatchObject({ kind: 'retry', heartbeats: 1 });
  });

  it('hands the handler the given signal, so a test can abort the attempt', async () => {
    const controller = new AbortController();
    const waiting = new ScriptedHandler(
      (_job, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    const running = runJob(waiting, { n: 1 }, { signal: controller.signal });
    controller.abort();
    expect(await running).toMatchObject({ kind: 'retry' });
  });

  it("aborts an attempt still running at the handler's timeout and fails it with JobTimeoutError, as the engine does", async () => {
    const handler = new StuckHandler();
    const first = await runJob(handler, {});
    expect(first).toMatchObject({ kind: 'retry', delayMs: 100 });
    expect((first as { error: unknown }).error).toEqual(new JobTimeoutError(20));
    expect(handler.abortedWith).toBe((first as { error: unknown }).error);
    expect(await runJob(handler, {}, { attempt: 2 })).toMatchObject({ kind: 'dead', error: expect.any(JobTimeoutError) });
  }, 5_000);

  it('answers the result as the engine stores it: through JSON, or null with the reason for one JSON cannot hold', async () => {
    const bigint = await runJob(new ScriptedHandler(() => ({ total: 10n })), { n: 1 });
    expect(bigint).toMatchObject({
      kind: 'completed',
      result: null,
      lastError: 'result is not JSON-serialisable: Do not know how to serialize a BigInt',
    });
    const dated = await runJob(new ScriptedHandler(() => ({ at: new Date('2030-01-01T00:00:00Z') })), { n: 1 });
    expect(dated).toMatchObject({ kind: 'completed', result: { at: '2030-01-01T00:00:00.000Z' } });
    expect(dated).not.toHaveProperty('lastError');
  });

  it.each([
    ['ignores it', new ScriptedHandler(() => new Promise(() => undefined))],
    ['rejects with its own error', reactingToAbort((_resolve, reject) => reject(new Error('socket closed')))],
    ['returns a result', reactingToAbort((resolve) => resolve('done anyway'))],
  ])(
    'is cancelled when aborted with JobCancelledError, whatever the handler does after: it %s',
    async (_what, handler) => {
      const controller = new AbortController();
      const running = runJob(handler, { n: 1 }, { signal: controller.signal });
      const cancel = new JobCancelledError('6f1c0e52-0c1e-4d8f-9a51-7a0d6f0b3c11');
      controller.abort(cancel);
      expect(await running).toMatchObject({ kind: 'cancelled', error: cancel });
    },
    5_000,
  );

  it('classifies an aborted attempt by the abort reason at once, not by what the handler throws after', async () => {
    const controller = new AbortController();
    const handler = reactingToAbort((_resolve, reject) => reject(new Error('socket closed')));
    const running = runJob(handler, { n: 1 }, { signal: controller.signal, attempt: 1, maxAttempts: 1 });
    const timeout = new JobTimeoutError(30_000);
    controller.abort(timeout);
    expect(await running).toMatchObject({ kind: 'dead', error: timeout });
  });
});
