import { JobErrorKind } from '../../job/job-error-kind';
import { LeaderTerm, leaderFence } from './leadership.sql';
import { SqlParams } from './sql-params';
import { SqlTables, Statement } from './statement';

/**
 * now() in the shape a worker writes its entries' times in (Date.toISOString(): UTC, milliseconds, `Z`), whatever the
 * session's time zone: one history, one format.
 */
const ISO_NOW = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Returns RUNNING jobs whose lease ran out to RETRYING (ready at once), or DEAD when the attempt that was
 * lost was the last one. The error history records which worker held the lease. Clearing the lease token
 * fences the old worker: its late heartbeat or completion no longer matches any row. Each rescued row
 * comes back with the worker that lost it (`lost_by`), for the log. Only the current leadership term rescues.
 */
export function jobRescueExpired(t: SqlTables, limit: number, messagePrefix: string, lease: LeaderTerm): Statement {
  const p = new SqlParams();
  const fence = leaderFence(t, p.add(lease.holder), p.add(lease.term));
  return { text: jobRescueExpiredSql(t, p, limit, messagePrefix, fence), values: p.values };
}

/** What jobRescueExpired and the maintenance round's rescue return per job. */
export interface RescuedRow {
  id: string;
  status: string;
  queue: string;
  type: string;
  attempts: number;
  /** The worker whose lease expired. */
  lost_by: string | null;
}

/** jobRescueExpired's statement, rescuing while `fence` holds, its values added to `p`. */
export function jobRescueExpiredSql(t: SqlTables, p: SqlParams, limit: number, messagePrefix: string, fence: string): string {
  const prefix = p.add(messagePrefix);
  return `
WITH expired AS (
  SELECT id, locked_by FROM ${t.jobs}
  WHERE status = 'RUNNING' AND locked_until < now() AND ${fence}
  ORDER BY locked_until
  LIMIT ${p.add(limit)}
  FOR UPDATE SKIP LOCKED
)
UPDATE ${t.jobs} j SET
  status = CASE WHEN j.attempts >= j.max_attempts THEN 'DEAD' ELSE 'RETRYING' END,
  run_at = now(),
  last_error = ${prefix} || coalesce(j.locked_by, 'an unknown worker') || '.',
  errors = j.errors || jsonb_build_array(jsonb_build_object(
    'attempt', j.attempts, 'at', ${ISO_NOW}, 'kind', ${p.add(JobErrorKind.LEASE_EXPIRED)}::text, 'worker', j.locked_by,
    'error', ${prefix} || coalesce(j.locked_by, 'an unknown worker') || '.')),
  locked_by = NULL,
  locked_until = NULL,
  lease_token = NULL,
  finished_at = CASE WHEN j.attempts >= j.max_attempts THEN now() ELSE NULL END,
  updated_at = now(),
  version = j.version + 1
FROM expired WHERE j.id = expired.id
RETURNING j.id, j.status, j.queue, j.type, j.attempts, expired.locked_by AS lost_by`;
}
