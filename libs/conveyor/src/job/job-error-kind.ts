/**
 * How an attempt ended, as written in a job's error history (`errors[].kind`). These are the only kinds the
 * engine writes: the outcome rows (consumer/outcome-rows.ts) and the lease sweeper's statement take them from
 * here, and the OpenAPI enum and the client's copy are checked against this list.
 */
export const JobErrorKind = {
  /** The handler threw (or an external worker reported a failure): retried with backoff until maxAttempts. */
  FAILED: 'failed',
  /** The handler ran past its timeout; counted like a failure. */
  TIMEOUT: 'timeout',
  /** PermanentJobError (or `permanent: true`): DEAD at once. */
  PERMANENT: 'permanent',
  /** RetryLaterError (or `retryAt`): runs again at the given time; the attempt does not count. */
  RETRY_LATER: 'retry-later',
  /** A retry-later past MAX_SNOOZES: DEAD. */
  SNOOZE_CAP: 'snooze-cap',
  /** CancelJobError: CANCELLED. */
  CANCELLED: 'cancelled',
  /** The worker was shutting down and gave the job back unrun; the attempt does not count. */
  HANDED_BACK: 'handed-back',
  /** The lease ran out (the worker died or stalled) and the sweeper rescued the job. */
  LEASE_EXPIRED: 'lease-expired',
} as const;
export type JobErrorKind = (typeof JobErrorKind)[keyof typeof JobErrorKind];

/** Every kind, for enums (OpenAPI) and checks. */
export const JOB_ERROR_KINDS: readonly JobErrorKind[] = Object.values(JobErrorKind);
