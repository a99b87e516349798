import { Job } from '../../job/job';
import { PlainJob } from '../../job/plain-job';
import { JobProgress } from '../../job/job-progress';
import { JobStatus } from '../../job/job-status';

/** Raw row as returned by the engine's SQL (snake_case columns). */
export type JobRow = Record<string, unknown>;

/**
 * Maps a raw `conveyor_jobs` row to the camelCase {@link Job} shape.
 *
 * Built with `new PlainJob()`, never an object literal, so that a job dies in V8's young generation: V8 moves
 * object literals from a busy allocation site straight to the old generation once many outlive a young GC, and
 * claimed jobs waiting in the buffer do (docs/performance.md, "Design notes from measurements").
 */
export function mapJobRow<P = unknown, R = unknown>(row: JobRow): Job<P, R> {
  const job = new PlainJob<P, R>();
  job.id = row.id as string;
  job.seq = String(row.seq);
  job.queue = row.queue as string;
  job.type = row.type as string;
  job.payload = row.payload as P;
  job.status = row.status as JobStatus;
  job.priority = row.priority as number;
  job.runAt = row.run_at as Date;
  job.attempts = row.attempts as number;
  job.maxAttempts = row.max_attempts as number;
  job.snoozes = row.snoozes as number;
  job.lastError = (row.last_error as string | null) ?? null;
  job.result = (row.result as R | null) ?? null;
  job.errors = (row.errors as Job['errors']) ?? [];
  job.idempotencyKey = (row.idempotency_key as string | null) ?? null;
  job.uniqueKey = (row.unique_key as string | null) ?? null;
  job.lockedBy = (row.locked_by as string | null) ?? null;
  job.lockedUntil = (row.locked_until as Date | null) ?? null;
  job.leaseToken = (row.lease_token as string | null) ?? null;
  job.version = row.version as number;
  job.createdAt = row.created_at as Date;
  job.updatedAt = row.updated_at as Date;
  job.startedAt = (row.started_at as Date | null) ?? null;
  job.finishedAt = (row.finished_at as Date | null) ?? null;
  job.progress = (row.progress as JobProgress | null) ?? null;
  return job;
}
