/**
 * The shapes Conveyor's REST API speaks, as JSON (dates are ISO strings). Kept here, not imported from
 * `@conveyor/core`, so the client runs in any Node service without the engine or Nest.
 */

/** Where a job is in the pipeline. */
export const JobStatus = {
  SCHEDULED: 'SCHEDULED',
  PENDING: 'PENDING',
  RUNNING: 'RUNNING',
  RETRYING: 'RETRYING',
  COMPLETED: 'COMPLETED',
  DEAD: 'DEAD',
  CANCELLED: 'CANCELLED',
} as const;
export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/** Statuses a job never leaves on its own. */
export const TERMINAL_STATUSES: readonly JobStatus[] = [JobStatus.COMPLETED, JobStatus.DEAD, JobStatus.CANCELLED];

/** One failed, snoozed or rescued attempt in a job's history. */
export interface JobErrorEntry {
  attempt: number;
  at: string;
  kind: string;
  error: string;
  worker?: string | null;
  stack?: string;
  retryAt?: string;
}

/** A job as the API returns it. It has no lease token: only a claim hands one out (see ClaimedJob). */
export interface Job<P = unknown, R = unknown> {
  id: string;
  seq: string;
  queue: string;
  type: string;
  payload: P;
  status: JobStatus;
  priority: number;
  runAt: string;
  attempts: number;
  maxAttempts: number;
  snoozes: number;
  lastError: string | null;
  result: R | null;
  errors: JobErrorEntry[];
  idempotencyKey: string | null;
  /** At most one waiting or running job per (type, uniqueKey). */
  uniqueKey: string | null;
  /** The worker holding the job while RUNNING. */
  lockedBy: string | null;
  lockedUntil: string | null;
  /** Bumped by every change of the job. */
  version: number;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** A submission: `type` and `payload`, the rest optional. Give `runAt` or `delayMs`, not both. */
export interface JobRequest<P = unknown> {
  type: string;
  payload: P;
  queue?: string;
  /** Lower runs first (default 0). */
  priority?: number;
  /** When to run: a Date, or an ISO date-time with offset. */
  runAt?: Date | string;
  delayMs?: number;
  maxAttempts?: number;
  idempotencyKey?: string;
}

/** Filters of `list`; `cursor` is the `nextCursor` of the previous page. */
export interface ListJobsFilter {
  status?: JobStatus;
  type?: string;
  queue?: string;
  /** Text within the idempotency key. */
  key?: string;
  /** Page size, 1-500 (the server's default is 50). */
  limit?: number;
  cursor?: string;
}

/** One page of `list`, newest first. */
export interface JobPage<P = unknown, R = unknown> {
  items: Job<P, R>[];
  nextCursor: string | null;
}

/** One field's problems in a 400 answer. */
export interface FieldProblem {
  field: string;
  problems: string[];
}

/** The body of every error answer. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  details?: FieldProblem[];
}
