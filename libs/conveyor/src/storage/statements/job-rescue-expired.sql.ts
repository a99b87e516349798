import { JobErrorKind } from '../../job/job-error-kind';
import { LeaderTerm, leaderFence } from './leadership.sql';
import { SqlTables, Statement } from './statement';

/**
 * Returns RUNNING jobs whose lease ran out to RETRYING (ready at once), or DEAD when the attempt that was
 * lost was the last one. The error history records which worker held the lease. Clearing the lease token
 * fences the old worker: its late heartbeat or completion no longer matches any row. Each rescued row
 * comes back with the worker that lost it (`lost_by`), for the log. Only the current leadership term rescues.
 */
export function jobRescueExpired(t: SqlTables, limit: number, messagePrefix: string, lease: LeaderTerm): Statement {
  return {
    text: `
WITH expired AS (
  SELECT id, locked_by FROM ${t.jobs}
  WHERE status = 'RUNNING' AND locked_until < now() AND ${leaderFence(t, '$3', '$4')}
  ORDER BY locked_until
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE ${t.jobs} j SET
  status = CASE WHEN j.attempts >= j.max_attempts THEN 'DEAD' ELSE 'RETRYING' END,
  run_at = now(),
  last_error = $2 || coalesce(j.locked_by, 'an unknown worker') || '.',
  errors = j.errors || jsonb_build_array(jsonb_build_object(
    'attempt', j.attempts, 'at', now(), 'kind', $5::text, 'worker', j.locked_by,
    'error', $2 || coalesce(j.locked_by, 'an unknown worker') || '.')),
  locked_by = NULL,
  locked_until = NULL,
  lease_token = NULL,
  finished_at = CASE WHEN j.attempts >= j.max_attempts THEN now() ELSE NULL END,
  updated_at = now(),
  version = j.version + 1
FROM expired WHERE j.id = expired.id
RETURNING j.id, j.status, j.queue, j.type, j.attempts, expired.locked_by AS lost_by`,
    values: [limit, messagePrefix, lease.holder, lease.term, JobErrorKind.LEASE_EXPIRED],
  };
}
