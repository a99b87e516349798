import { JobErrorEntry } from './job-error-entry.interface';
import { JobStatus } from './job-status';

/**
 * A job as the engine reads it from `conveyor_jobs` (mapped from raw rows by job-row.mapper). Deliberately
 * not a TypeORM entity: the table, its partial indexes, triggers and functions belong to the checked-in SQL
 * migrations (../migrations), and a host app running TypeORM's `synchronize` would otherwise "fix" them to
 * match decorators that can express none of that. The name stays for compatibility with code importing it.
 *
 * `version` is bumped by every engine statement that changes a job: the `optimistic` claim strategy
 * compares-and-sets on it.
 */
export class JobEntity<P = unknown, R = unknown> {
  id: string;

  /** Monotonic insertion order (informational: the list pages by the time-ordered id). */
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
  errors: JobErrorEntry[];
  idempotencyKey: string | null;

  /** At most one waiting or running job per (type, uniqueKey). */
  uniqueKey: string | null;
  idempotencyHash?: string | null;
  lockedBy: string | null;
  lockedUntil: Date | null;

  /** Fencing token of the current claim: every write-back must present it. The REST API hands it out only in a claim's answer. */
  leaseToken: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** The shape handlers and API callers see. */
export type Job<P = unknown, R = unknown> = JobEntity<P, R>;
