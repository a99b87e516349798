import { JobStatus } from '../../job/job-status';
import { SqlTables, Statement } from './statement';

/** Which jobs a bulk retry takes: DEAD (or CANCELLED) ones, optionally narrowed like the job list. */
export interface JobRetryManyFilter {
  status: typeof JobStatus.DEAD | typeof JobStatus.CANCELLED;
  queue?: string;
  /** Matched whatever the case. */
  type?: string;
  /** Substring of the idempotency key, LIKE-escaped by the caller. */
  key?: string;
  /** Most jobs one statement retries. */
  limit: number;
  /** The types a worker of the deployment may run; jobs of other types are left as they are. */
  types: readonly string[];
}

/**
 * DEAD/CANCELLED → PENDING with a fresh attempt budget, for up to `limit` jobs matching the filter, oldest
 * first, in one statement; the same change as {@link jobRetry}, error history kept. Returns the ids retried.
 *
 * - The constant `status IN ('DEAD','CANCELLED')` lets the planner use the partial
 *   `conveyor_jobs_attention (status, id)` index whatever the bound status is.
 * - `SKIP LOCKED` leaves rows another statement is changing right now (a single retry, a purge) to it.
 * - Jobs of a type outside `types` (no handler knows it any more) are left as they are: PENDING, they would wait for a
 *   worker that never comes.
 * - Unique keys: a job whose (type, unique_key) is held by a waiting or running job is left as it is, and of
 *   several candidates sharing one key only the newest is retried — so the statement never trips the
 *   `conveyor_jobs_unique_key` index (the single retry answers those cases with a 409 instead).
 */
export function jobRetryMany(t: SqlTables, f: JobRetryManyFilter): Statement {
  return {
    text: `
WITH candidates AS (
  SELECT c.id, c.type, c.unique_key FROM ${t.jobs} c
  WHERE c.status IN ('DEAD','CANCELLED') AND c.status = $1
    AND ($2::text IS NULL OR c.queue = $2)
    AND ($3::text IS NULL OR lower(c.type) = lower($3))
    AND ($4::text IS NULL OR c.idempotency_key LIKE '%' || $4 || '%')
    AND c.type = ANY($6::text[])
    AND (c.unique_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM ${t.jobs} h
      WHERE h.type = c.type AND h.unique_key = c.unique_key AND h.status IN ('SCHEDULED','PENDING','RETRYING','RUNNING')))
  ORDER BY c.status, c.id
  LIMIT $5
  FOR UPDATE OF c SKIP LOCKED
), picked AS (
  SELECT DISTINCT ON (type, coalesce(unique_key, id::text)) id
  FROM candidates
  ORDER BY type, coalesce(unique_key, id::text), id DESC
)
UPDATE ${t.jobs} j SET status = 'PENDING', attempts = 0, snoozes = 0, run_at = now(), started_at = NULL,
  finished_at = NULL, updated_at = now(), version = j.version + 1
FROM picked
WHERE j.id = picked.id
RETURNING j.id`,
    values: [f.status, f.queue ?? null, f.type ?? null, f.key ?? null, f.limit, f.types],
  };
}
