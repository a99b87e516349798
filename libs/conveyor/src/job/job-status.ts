/**
 * Where a job is in the pipeline. The handler's outcome lives in `result` / `lastError`, not here.
 *
 * A const object and a union type rather than a TypeScript enum: the values are the strings stored in
 * `conveyor_jobs.status` and sent over REST, and a union is what the client (@conveyor/client, which keeps
 * its own copy) and the OpenAPI document can state identically; test/types checks that they do.
 */
export const JobStatus = {
  /** Waiting for its run_at. */
  SCHEDULED: 'SCHEDULED',
  /** Ready to run. */
  PENDING: 'PENDING',
  /** Claimed by a worker under a lease. */
  RUNNING: 'RUNNING',
  /** An attempt failed (or asked to run later); waiting for its run_at. */
  RETRYING: 'RETRYING',
  COMPLETED: 'COMPLETED',
  /** Attempts exhausted, or a permanent error. */
  DEAD: 'DEAD',
  CANCELLED: 'CANCELLED',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/** Every status, in the order a job can pass through them. */
export const JOB_STATUSES: readonly JobStatus[] = Object.values(JobStatus);
/** States a worker may claim from, once run_at has passed. */
export const CLAIMABLE_STATUSES = [JobStatus.SCHEDULED, JobStatus.PENDING, JobStatus.RETRYING] as const;
/** States a job never leaves on its own. */
export const TERMINAL_STATUSES = [JobStatus.COMPLETED, JobStatus.DEAD, JobStatus.CANCELLED] as const;

export function isTerminal(status: JobStatus): boolean {
  return (TERMINAL_STATUSES as readonly JobStatus[]).includes(status);
}
