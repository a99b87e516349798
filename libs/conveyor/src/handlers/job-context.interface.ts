/** What a handler gets besides the job. */
export interface JobContext {
  /**
   * Fires when the attempt times out, the claim is lost, the worker shuts down past its grace period, or an operator
   * cancels the running job (reason: JobCancelledError; the job is CANCELLED and nothing the handler does after is
   * stored).
   */
  signal: AbortSignal;
  /** 1 on the first attempt. */
  attempt: number;
  /** The worker running this attempt. */
  workerId: string;
  /**
   * Extends this job's lease now (leases are also extended automatically while the handler runs).
   * Throws when the claim was lost, so a long job can stop early.
   */
  heartbeat(): Promise<void>;
  /**
   * Reports how far the job has come: a percentage (0–100), or `{ percent, data }` with a small JSON object of your
   * own (at most 1 KiB as JSON), or both. Stored on the job (`progress`), shown in the dashboard and sent to live
   * subscribers. Rejects with a JobValidationError for a bad report, and like `heartbeat` when the claim was lost.
   */
  progress(progress: number | { percent?: number | null; data?: Record<string, unknown> | null }): Promise<void>;
}
