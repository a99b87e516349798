import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../config/conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { JobContext } from '../handlers/job-context.interface';
import { JobHandlerHost } from '../handlers/job-handler.host';
import { FinishRow } from '../storage/statements/finish-row';
import { AttemptDeadlines } from './attempt-deadlines';
import { AttemptReports } from './attempt-reports';
import { HeldJob } from './held-job';
import { attemptRow } from './outcome-rows';

/** Told how an attempt ended: the row to write back, or null when nothing may be written (the claim was lost). */
export type AttemptDone = (row: FinishRow | null) => void;

/**
 * The context a handler gets; a class so every attempt's context has one shape. `heartbeat` and `progress` are made
 * when a handler reads them (most never do), bound to this attempt, so they can be passed around on their own.
 */
class AttemptContext implements JobContext {
  constructor(
    private readonly held: HeldJob,
    readonly attempt: number,
    readonly workerId: string,
    private readonly reports: AttemptReports,
  ) {}

  get signal(): AbortSignal {
    return this.held.signal;
  }

  get heartbeat(): () => Promise<void> {
    return () => this.reports.heartbeat(this.held);
  }

  get progress(): (progress: unknown) => Promise<void> {
    return (progress) => this.reports.progress(this.held, progress);
  }
}

/**
 * Runs one attempt: calls the handler with an AbortSignal, enforces the timeout, and turns what
 * happened into the row to write back. The attempt ends at whichever comes first of the handler
 * settling, the timeout, or an abort (lost claim, shutdown, cancelled by an operator) — so a slot is freed even
 * when a handler ignores its signal. `done` hears null when nothing may be written (the claim was lost, or the job
 * was cancelled).
 *
 * Written with plain callbacks rather than `async`/`Promise.race` with a timer per attempt, and without a
 * promise of its own: for a short handler those allocations would be most of the attempt's own cost (and of
 * the GC work behind it). Timeouts share one timer (AttemptDeadlines); every attempt settles exactly once — by
 * its handler, its deadline or an abort — and leaves the deadline set when it does, so no timer keeps the
 * process alive once the attempts are over.
 */
@Injectable()
export class JobExecutor {
  private readonly deadlines = new AttemptDeadlines<HeldJob>();

  constructor(@Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions) {}

  execute(held: HeldJob, reports: AttemptReports, done: AttemptDone): void {
    const { job, handler } = held;
    let settled = false;
    const settle = (ok: boolean, value: unknown) => {
      if (settled) return;
      settled = true;
      this.deadlines.remove(held);
      held.onAbort(null);
      const end = { ok, value, aborted: held.abortReason, lost: held.lost };
      done(attemptRow(job, handler, end, this.options.workerId, this.options.maxSnoozes));
    };
    const fail = (err: unknown) => settle(false, err);
    held.deadline = performance.now() + handler.timeoutMs;
    this.deadlines.add(held);
    held.onAbort(fail);
    // The handler starts in a microtask, as an `await` would: the caller's bookkeeping is done by then,
    // and a handler that throws synchronously fails its attempt like one that rejects. A request-scoped handler is
    // resolved first, within the attempt's timeout; a failure to resolve it fails the attempt.
    queueMicrotask(() => {
      if (settled) return;
      if (handler.instance) this.run(handler.instance, held, reports, settle, fail);
      else
        handler.resolve!(job).then((instance) => {
          if (!settled) this.run(instance, held, reports, settle, fail);
        }, fail);
    });
  }

  private run(
    instance: JobHandlerHost,
    held: HeldJob,
    reports: AttemptReports,
    settle: (ok: boolean, value: unknown) => void,
    fail: (err: unknown) => void,
  ): void {
    // Looking at what `handle` returned runs handler code too (a `then` getter or method, a proxy's traps): what
    // that throws fails the attempt, since it would otherwise escape this microtask and end the process. A plain
    // value is settled outside the guard: once settling has begun, a failure cannot settle the attempt again.
    let returned: unknown;
    try {
      returned = instance.handle(held.job, new AttemptContext(held, held.job.attempts, this.options.workerId, reports));
      if (isThenable(returned)) {
        returned.then((result) => settle(true, result), fail);
        return;
      }
    } catch (err) {
      fail(err);
      return;
    }
    settle(true, returned);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
