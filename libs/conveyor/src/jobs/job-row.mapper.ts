import { Job } from './job.entity';
import { JobStatus } from './job-status';

/** Raw row as returned by the engine's SQL (snake_case columns). */
export type JobRow = Record<string, unknown>;

/** Maps a raw `conveyor_jobs` row to the camelCase {@link Job} shape. */
export function mapJobRow<P = unknown, R = unknown>(row: JobRow): Job<P, R> {
  return {
    id: row.id as string,
    seq: String(row.seq),
    queue: row.queue as string,
    type: row.type as string,
    payload: row.payload as P,
    status: row.status as JobStatus,
    priority: row.priority as number,
    runAt: row.run_at as Date,
    attempts: row.attempts as number,
    maxAttempts: row.max_attempts as number,
    snoozes: row.snoozes as number,
    lastError: (row.last_error as string | null) ?? null,
    result: (row.result as R | null) ?? null,
    errors: (row.errors as Job['errors']) ?? [],
    idempotencyKey: (row.idempotency_key as string | null) ?? null,
    uniqueKey: (row.unique_key as string | null) ?? null,
    lockedBy: (row.locked_by as string | null) ?? null,
    lockedUntil: (row.locked_until as Date | null) ?? null,
    leaseToken: (row.lease_token as string | null) ?? null,
    version: row.version as number,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
    startedAt: (row.started_at as Date | null) ?? null,
    finishedAt: (row.finished_at as Date | null) ?? null,
  };
}

/**
 * Maps a row returned by a claim (`CLAIMED_JOB_COLUMNS`): the job is RUNNING under `workerId`, and the
 * claim set `updated_at` to the same `now()` as `started_at` and `locked_until` to `leaseMs` after it.
 */
export function mapClaimedJobRow<P = unknown>(row: JobRow, workerId: string, leaseMs: number): Job<P> {
  const job = mapJobRow<P>(row);
  const startedAt = row.started_at as Date;
  job.status = JobStatus.RUNNING;
  job.lockedBy = workerId;
  job.lockedUntil = new Date(startedAt.getTime() + leaseMs);
  job.updatedAt = startedAt;
  return job;
}
