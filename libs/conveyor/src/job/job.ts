import { JobErrorEntry } from './job-error-entry.interface';
import { JobProgress } from './job-progress';
import { JobStatus } from './job-status';

/**
 * A job as the engine reads it from `conveyor_jobs`: the one definition of a job's shape. The REST view
 * (http/controllers/job-view.ts), the OpenAPI schema (http/dto/job.dto.ts) and the client's `Job` (@conveyor/client) are
 * derived from it or checked against it by the type tests in test/types.
 *
 * Not a TypeORM entity: the table, its partial indexes, triggers and functions belong to the checked-in SQL
 * migrations, and a host running TypeORM's `synchronize` must find no entity of Conveyor's to "fix" them by.
 *
 * `version` is bumped by every engine statement that changes a job: the `optimistic` claim strategy
 * compares-and-sets on it.
 */
export interface Job<P = unknown, R = unknown> {
  id: string;
  /** Monotonic insertion order, a bigint as a string (informational: the list pages by the time-ordered id). */
  seq: string;
  queue: string;
  type: string;
  payload: P;
  status: JobStatus;
  /** Lower runs first. */
  priority: number;
  runAt: Date;
  attempts: number;
  maxAttempts: number;
  /** How many times the handler asked to run later (does not use up attempts). */
  snoozes: number;
  lastError: string | null;
  result: R | null;
  /** One entry per attempt that did not complete, oldest first. */
  errors: JobErrorEntry[];
  idempotencyKey: string | null;
  /** At most one waiting or running job per (type, uniqueKey). */
  uniqueKey: string | null;
  lockedBy: string | null;
  lockedUntil: Date | null;
  /**
   * Fencing token of the current claim: every write-back must present it. The REST API hands it out only in
   * a claim's answer; the job view leaves it out.
   */
  leaseToken: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** What the current or latest attempt last reported of its progress; null before it reports any. */
  progress: JobProgress | null;
}
