import { cancelNoticeSql } from './cancel-notice.codec';
import { jobColumns, SqlTables, Statement } from './statement';

/**
 * {@link jobCancel} for many jobs in one statement and one commit: each listed job that is SCHEDULED, PENDING,
 * RETRYING or RUNNING becomes CANCELLED, a RUNNING one losing its lease token and its owner getting the notice.
 * Rows come back for the jobs cancelled; a listed job missing or in another state has none, and the caller
 * settles it on its own.
 *
 * - The locking SELECT takes its rows in id order (see lockedInIdOrder), so it cannot deadlock with the other
 *   statements that wait for several job rows; waiting on a row re-checks its status on the newest version, as
 *   the single cancel does.
 * - The caller bounds the list (MAX_BULK_IDS), which bounds the locks one transaction holds.
 */
export function jobCancelMany(t: SqlTables, ids: readonly string[], channel: string): Statement {
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
