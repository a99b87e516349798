import { Job } from '../job/job';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { RegisteredHandler } from '../handlers/registered-handler.interface';
import { Expiring } from './attempt-deadlines';

/** One attempt's claim on a job: the job, and the lease token its claim set (a retry's claim sets another). */
export interface HeldLease {
  id: string;
  token: string;
}

/** Where a claimed job is inside this process. */
export type HeldState = 'buffered' | 'running' | 'finishing';

/**
 * A job this worker has claimed and must account for until its outcome is written or it is handed back.
 *
 * The attempt's AbortSignal is made only when the handler reads it: an AbortController and its signal
 * cost more than a trivial handler itself, and most handlers never look. `abort()` records the reason, fires
 * the signal if one was made, and tells the executor, which ends the attempt whether or not the handler
 * listens.
 */
export class HeldJob implements Expiring {
  state: HeldState = 'buffered';
  /** The claim was lost (or the job cancelled); whatever this attempt produces must not be written. */
  lost = false;
  /** An operator cancelled the job while this process held it. */
  cancelled = false;
  /** The handler sent a progress report during this attempt (see Completer's OutcomeAttempt). */
  reportedProgress = false;
  startedAt = 0;
  /** performance.now() at which the running attempt times out. */
  deadline = Infinity;
  /**
   * performance.now() until which the claim is certainly still ours, by this process's clock: when the last
   * statement that set the lease (the claim or a heartbeat) was sent, plus the lease, less a safety margin.
   * The database counts the lease from when it ran that statement, which is no earlier.
   */
  leaseValidUntil = Infinity;
  private controller: AbortController | null = null;
  private abortedWith: { reason: unknown } | null = null;
  private abortListener: ((reason: unknown) => void) | null = null;

  constructor(
    readonly job: Job,
    readonly handler: RegisteredHandler,
  ) {}

  get token(): string {
    return this.job.leaseToken as string;
  }

  /** The attempt's signal (created on first use, already aborted if the attempt was). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Why the attempt was aborted, or undefined while it was not. */
  get abortReason(): { reason: unknown } | null {
    return this.abortedWith;
  }

  /** Aborts the attempt (timeout, lost claim, shutdown); only the first reason counts. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    this.abortListener?.(reason);
  }

  /** The attempt ran past its handler's timeout. */
  expire(): void {
    this.abort(new JobTimeoutError(this.handler.timeoutMs));
  }

  /** Calls `listener` once the attempt is aborted (at once if it already was); null removes it. */
  onAbort(listener: ((reason: unknown) => void) | null): void {
    this.abortListener = listener;
    if (listener && this.abortedWith) listener(this.abortedWith.reason);
  }
}
