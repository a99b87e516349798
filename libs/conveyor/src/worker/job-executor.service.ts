import { Inject, Injectable } from '@nestjs/common';
import { CONVEYOR_OPTIONS } from '../conveyor.constants';
import { ConveyorOptions } from '../config/conveyor-options.interface';
import { JobContext } from '../handlers/job-context.interface';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { FinishRow } from '../sql/job-finish-many.sql';
import { LeaseLostError, WorkerShutdownError } from './abort-reasons';
import { HeldJob } from './held-job';
import { completedRow, failureRow, handBackRow } from './outcome-rows';

/**
 * Runs one attempt: calls the handler with an AbortSignal, enforces the timeout, and turns what
 * happened into the row to write back. The attempt ends at whichever comes first of the handler
 * settling, the timeout, or an abort (lost claim, shutdown) — so a slot is freed even when a handler
 * ignores its signal. Returns null when nothing may be written (the claim was lost).
 */
@Injectable()
export class JobExecutor {
  constructor(@Inject(CONVEYOR_OPTIONS) private readonly options: ConveyorOptions) {}

  async execute(held: HeldJob, heartbeat: () => Promise<void>): Promise<FinishRow | null> {
    const { job, handler } = held;
    const context: JobContext = {
      get signal() {
        return held.signal;
      },
      attempt: job.attempts,
      workerId: this.options.workerId,
      heartbeat,
    };
    let timer: NodeJS.Timeout | undefined;
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => held.abort(new JobTimeoutError(handler.timeoutMs)), handler.timeoutMs);
      held.onAbort(reject);
    });
    try {
      const result = await Promise.race([Promise.resolve().then(() => handler.instance.handle(job, context)), stopped]);
      return completedRow(job, result);
    } catch (err) {
      const reason = held.abortReason ? held.abortReason.reason : err;
      if (reason instanceof LeaseLostError || held.lost) return null;
      if (reason instanceof WorkerShutdownError) return handBackRow(job, this.options.workerId);
      return failureRow(job, handler, reason, this.options.workerId, this.options.maxSnoozes);
    } finally {
      clearTimeout(timer);
      held.onAbort(null);
      // Keep the rejection of `stopped` from surfacing as unhandled once the race is over.
      stopped.catch(() => undefined);
    }
  }
}
