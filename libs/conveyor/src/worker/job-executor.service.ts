import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { JobContext } from '../handlers/job-context.interface';
import { FinishRow } from '../sql/job-finish-many.sql';
import { LeaseLostError, WorkerShutdownError } from './abort-reasons';
import { AttemptDeadlines } from './attempt-deadlines';
import { HeldJob } from './held-job';
import { completedRow, failureRow, handBackRow } from './outcome-rows';

/** The context a handler gets; a class so every attempt's context has one shape. */
class AttemptContext implements JobContext {
  constructor(
    private readonly held: HeldJob,
    readonly attempt: number,
    readonly workerId: string,
    readonly heartbeat: () => Promise<void>,
  ) {}

  get signal(): AbortSignal {
    return this.held.signal;
  }
}

/**
 * Runs one attempt: calls the handler with an AbortSignal, enforces the timeout, and turns what
 * happened into the row to write back. The attempt ends at whichever comes first of the handler
 * settling, the timeout, or an abort (lost claim, shutdown) — so a slot is freed even when a handler
 * ignores its signal. Resolves null when nothing may be written (the claim was lost).
 *
 * Written with one promise and plain callbacks rather than `async`/`Promise.race` with a timer per
 * attempt: for a no-op handler those allocations were most of the attempt's own cost (and of the GC
 * work behind it). Timeouts share one timer (AttemptDeadlines); every attempt settles exactly once — by
 * its handler, its deadline or an abort — and leaves the deadline set when it does, so no timer keeps the
 * process alive once the attempts are over.
 */
@Injectable()
export class JobExecutor {
  private readonly deadlines = new AttemptDeadlines<HeldJob>();

  constructor(@Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions) {}

  execute(held: HeldJob, heartbeat: () => Promise<void>): Promise<FinishRow | null> {
    const { job, handler } = held;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: () => FinishRow | null) => {
        if (settled) return;
        settled = true;
        this.deadlines.remove(held);
        held.onAbort(null);
        try {
          resolve(outcome());
        } catch (err) {
          resolve(this.failed(held, err));
        }
      };
      const fail = (err: unknown) => settle(() => this.failed(held, err));
      held.deadline = performance.now() + handler.timeoutMs;
      this.deadlines.add(held);
      held.onAbort(fail);
      // The handler starts in a microtask, as an `await` would: the caller's bookkeeping is done by then,
      // and a handler that throws synchronously fails its attempt like one that rejects.
      queueMicrotask(() => {
        if (settled) return;
        let returned: unknown;
        try {
          returned = handler.instance.handle(job, new AttemptContext(held, job.attempts, this.options.workerId, heartbeat));
        } catch (err) {
          fail(err);
          return;
        }
        if (isThenable(returned)) returned.then((result) => settle(() => completedRow(job, result)), fail);
        else settle(() => completedRow(job, returned));
      });
    });
  }

  private failed(held: HeldJob, err: unknown): FinishRow | null {
    const reason = held.abortReason ? held.abortReason.reason : err;
    if (reason instanceof LeaseLostError || held.lost) return null;
    if (reason instanceof WorkerShutdownError) return handBackRow(held.job, this.options.workerId);
    return failureRow(held.job, held.handler, reason, this.options.workerId, this.options.maxSnoozes);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}
