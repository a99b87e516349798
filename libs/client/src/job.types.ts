/**
 * The shapes Conveyor's REST API speaks, as JSON (dates are ISO strings). A copy, not imported from
 * `@conveyor/core`, so the client runs in any Node service without the engine or Nest; the type tests in
 * test/types/client-shapes.test-d.ts fail the build when it drifts from the server's definitions.
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

/** How an attempt ended, as written in a job's error history (`errors[].kind`). */
export const JobErrorKind = {
  /** The handler threw (or a worker reported a failure): retried with backoff until maxAttempts. */
  FAILED: 'failed',
  /** The handler ran past its timeout; counted like a failure. */
  TIMEOUT: 'timeout',
  /** A permanent error: DEAD at once. */
  PERMANENT: 'permanent',
  /** Asked to run again at a given time; the attempt does not count. */
  RETRY_LATER: 'retry-later',
  /** A retry-later past the server's MAX_SNOOZES: DEAD. */
  SNOOZE_CAP: 'snooze-cap',
  /** The handler cancelled the job. */
  CANCELLED: 'cancelled',
  /** The worker was shutting down and gave the job back unrun; the attempt does not count. */
  HANDED_BACK: 'handed-back',
  /** The lease ran out (the worker died or stalled) and the job was rescued. */
  LEASE_EXPIRED: 'lease-expired',
} as const;
export type JobErrorKind = (typeof JobErrorKind)[keyof typeof JobErrorKind];

/** One attempt in a job's error history that did not complete: failed, rescued, snoozed, handed back. */
export interface JobErrorEntry {
  /** The attempt it ended. */
  attempt: number;
  /** When it ended. */
  at: string;
  kind: JobErrorKind;
  error: string;
  /** Stack trace, when the handler threw an Error. */
  stack?: string;
  /** The worker that ran the attempt. */
  worker?: string | null;
  /** When a retry-later asked to run again. */
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
  /** What the current or latest attempt last reported of its progress; null before it reports any. */
  progress: JobProgress | null;
}

/** How far a running job has come, as its handler or worker last reported it. */
export interface JobProgress {
  /** 0–100, or null when only `data` was reported. */
  percent: number | null;
  /** A small JSON object of the handler's own, or null when only `percent` was reported. */
  data: Record<string, unknown> | null;
}

/** A submission: `type` and `payload`, the rest optional. Give `runAt` or `delayMs`, not both. */
export interface JobRequest<P = unknown> {
  type: string;
  payload: P;
  queue?: string | undefined;
  /** Lower runs first (default 0). */
  priority?: number | undefined;
  /** When to run: a Date, or an ISO date-time with offset. */
  runAt?: Date | string | undefined;
  delayMs?: number | undefined;
  maxAttempts?: number | undefined;
  idempotencyKey?: string | undefined;
  /** At most one waiting or running job per (type, uniqueKey): while one exists, the submission answers it. */
  uniqueKey?: string | undefined;
}

/** Filters of `list`; `cursor` is the `nextCursor` of the previous page. */
export interface ListJobsFilter {
  status?: JobStatus | undefined;
  /** The job type, whatever the case. */
  type?: string | undefined;
  queue?: string | undefined;
  /** Text within the idempotency key. */
  key?: string | undefined;
  /** An object the payload contains (JSON containment): `{ customerId: 42 }`. */
  payload?: Record<string, unknown> | undefined;
  /** Created at or after (a Date, or ISO 8601 with a zone). */
  createdFrom?: Date | string | undefined;
  /** Created at or before. */
  createdTo?: Date | string | undefined;
  /** Page size, 1-500 (the server's default is 50). */
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** What `bulk` can do to chosen jobs. */
export type BulkAction = 'cancel' | 'retry' | 'delete';

/** What `bulk` did to one job. */
export interface BulkItemResult {
  id: string;
  /** Whether the action was applied to this job. */
  ok: boolean;
  /** The job's status now; null once deleted, or when there is no such job. */
  status: JobStatus | null;
  /** When refused: 404 (no such job) or 409 (its state, or a unique key, does not allow it). */
  statusCode?: number;
  message?: string;
}

/** The answer of `bulk`: one result per distinct id, in request order. */
export interface BulkActionResult {
  action: BulkAction;
  succeeded: number;
  failed: number;
  results: BulkItemResult[];
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
  /** On a 409 about a job's state: the state the job is in (`CANCELLED`: an operator cancelled it). */
  jobStatus?: JobStatus;
}
