/** Payload of the jobs the HTTP worker process runs: what each attempt should do. */
export interface HttpWorkerPayload {
  /** Fail attempts 1..failTimes with a TypeError. */
  failTimes?: number;
  /** Hang on this attempt (until the process is killed). */
  blockOnAttempt?: number;
  sleepMs?: number;
  /** Ask to run again this much later (RetryLaterError), every time. */
  retryLaterMs?: number;
  /** Copied into the result. */
  echo?: unknown;
}
