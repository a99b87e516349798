import { ClaimedJob, ProgressReport } from '../worker-protocol.types';

/** What a `runWorker` handler gets besides its job. */
export interface WorkerContext {
  /**
   * Fires when the claim is lost (LeaseLostError), an operator cancels the job (JobCancelledError: the next heartbeat
   * or progress report learns it) or the worker stops past its grace period (WorkerStoppedError).
   */
  signal: AbortSignal;
  /** This attempt (1 for the first run). */
  attempt: number;
  workerId: string;
  /**
   * Extends the lease now; throws LeaseLostError when the claim is gone (JobCancelledError when an operator cancelled
   * the job). Leases are also extended on a timer.
   */
  heartbeat(): Promise<void>;
  /**
   * Reports how far the job has come (`percent` 0–100 and/or `data`, a small JSON object): stored on the job and
   * sent to live subscribers. Throws LeaseLostError when the claim is gone (JobCancelledError when an operator cancelled
   * the job), with which `signal` fires too.
   */
  progress(progress: ProgressReport): Promise<void>;
}

/**
 * Works one job. The returned value (JSON) becomes the job's result; a thrown error fails the attempt
 * (retried with backoff until maxAttempts), `RetryLaterError` runs it again at a time, `PermanentJobError`
 * ends it DEAD.
 */
export type WorkerHandler<P = unknown, R = unknown> = (job: ClaimedJob<P>, context: WorkerContext) => Promise<R> | R;
