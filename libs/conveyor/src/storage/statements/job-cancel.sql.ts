import { cancelNoticeSql } from './cancel-notice.codec';
import { jobColumns, SqlTables, Statement } from './statement';

/**
 * SCHEDULED/PENDING/RETRYING/RUNNING → CANCELLED for each of `ids`, in one statement and one commit. A row comes back
 * for each job cancelled; a listed job missing or in another state has none, and the caller settles it on its own.
 *
 * A RUNNING job loses its lease token here, so the outcome its handler writes later (job-finish-many,
 * job-complete-many, an external worker's report: all guarded by the token) changes nothing: whichever of the
 * cancel and the outcome write locks the row first wins, and the other finds it no longer matching. The owner
 * (`locked_by`) is told on `channel` by a notice sent when this statement commits (see cancel-notice.codec), so its
 * handler's AbortSignal fires at once; the lease keeper's failed extension is the slow fallback.
 * `previous_status` answers which state the job was cancelled from.
 *
 * The locking SELECT takes its rows in id order (see lockedInIdOrder), so it cannot deadlock with the other statements
 * that wait for several job rows; waiting on a row re-checks its status on the newest version. Callers bound the list
 * (MAX_BULK_IDS), which bounds the locks one transaction holds.
 */
export function jobCancel(t: SqlTables, ids: readonly string[], channel: string): Statement {
  return {
    text: `
WITH prev AS (
  SELECT id, status, locked_by, lease_token FROM ${t.jobs}
  WHERE id = ANY($1::uuid[]) AND status IN ('SCHEDULED','PENDING','RETRYING','RUNNING')
  ORDER BY id
  FOR UPDATE
), cancelled AS (
  UPDATE ${t.jobs} j SET status = 'CANCELLED', finished_at = now(), updated_at = now(), version = j.version + 1,
    locked_by = NULL, locked_until = NULL, lease_token = NULL
  FROM prev WHERE j.id = prev.id
  RETURNING ${jobColumns('j')}, prev.status AS previous_status, prev.locked_by AS previous_owner, prev.lease_token AS previous_token
)
SELECT c.*, CASE WHEN c.previous_status = 'RUNNING' THEN ${cancelNoticeSql('$2', 'c')} END AS noticed
FROM cancelled c`,
    values: [ids, channel],
  };
}
