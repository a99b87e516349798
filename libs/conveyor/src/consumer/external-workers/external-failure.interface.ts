/**
 * How an external worker reports a failed attempt. Without `retryAt` or `permanent` it is an ordinary
 * failure: retried with backoff until `maxAttempts`, then DEAD — exactly like a handler that throws.
 */
export interface ExternalFailure {
  /** What went wrong (the error's message). */
  error: string;
  /** The error's class name as the worker knows it (`TypeError`, `ValueError`); `Error` when omitted. */
  errorName?: string;
  /** The worker's stack trace, kept in the job's error history. */
  stack?: string;
  /** "Try again at this time": like `RetryLaterError`, the attempt does not count (capped by `maxSnoozes`). */
  retryAt?: Date;
  /** "This will never work": like `PermanentJobError`, the job is DEAD at once. */
  permanent?: boolean;
}
