import { Job, JobEntity } from '../../job/job';
import { JobStatus } from '../../job/job-status';
import { ClaimStamp } from './claim-set';
import { CLAIMED_COLUMN as C, COUNTER, ClaimedJobRow } from './statement';
import { parseTimestamptz } from '../connections/engine-type-parsers';

/** Raw row as returned by the engine's SQL (snake_case columns). */
export type JobRow = Record<string, unknown>;

/**
 * Maps a raw `conveyor_jobs` row to the camelCase {@link Job} shape.
 *
 * Built with `new JobEntity()` rather than an object literal: V8 tracks object literals per allocation site
 * and, once it has seen many from one site outlive a young-generation GC (claimed jobs waiting in the
 * buffer), allocates every later one straight in the old generation. A job is dead a few milliseconds after
 * its outcome is written, but an old object is only found dead by a full GC; until then each young-generation
 * GC kept what the job points to (dates, strings, payload) alive and copied it. Objects made by a constructor
 * are not tracked that way and die young. Measured with the row arrays fixed likewise (see youngRows).
 */
export function mapJobRow<P = unknown, R = unknown>(row: JobRow): Job<P, R> {
  const job = new JobEntity<P, R>();
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
  return job;
}

/**
 * Maps a row returned by a claim (`CLAIMED_JOB_COLUMNS`, as an array): the job is RUNNING under the stamp's
 * worker and token, and the claim set `updated_at` to the same `now()` as `started_at` and `locked_until` to
 * the stamp's lease after it.
 */
export function mapClaimedJobRow<P = unknown>(row: ClaimedJobRow, stamp: ClaimStamp): Job<P> {
  const job = new JobEntity<P>();
  const counters = (row[C.counters] as string).split(',');
  const startedAt = parseTimestamptz(counters[COUNTER.started_at]);
  job.id = row[C.id] as string;
  job.seq = counters[COUNTER.seq];
  job.queue = row[C.queue] as string;
  job.type = row[C.type] as string;
  job.payload = row[C.payload] as P;
  job.status = JobStatus.RUNNING;
  job.priority = Number(counters[COUNTER.priority]);
  job.runAt = parseTimestamptz(counters[COUNTER.run_at]);
  job.attempts = Number(counters[COUNTER.attempts]);
  job.maxAttempts = Number(counters[COUNTER.max_attempts]);
  job.snoozes = Number(counters[COUNTER.snoozes]);
  job.lastError = (row[C.last_error] as string | null) ?? null;
  job.result = null;
  job.errors = [];
  job.idempotencyKey = (row[C.idempotency_key] as string | null) ?? null;
  job.uniqueKey = (row[C.unique_key] as string | null) ?? null;
  job.lockedBy = stamp.workerId;
  job.lockedUntil = new Date(startedAt.getTime() + stamp.leaseMs);
  job.leaseToken = stamp.token;
  job.version = Number(counters[COUNTER.version]);
  // Null when it equals run_at (see CLAIMED_JOB_COLUMNS).
  job.createdAt = (row[C.created_at] as Date | null) ?? new Date(job.runAt.getTime());
  job.updatedAt = startedAt;
  job.startedAt = startedAt;
  job.finishedAt = null;
  return job;
}
