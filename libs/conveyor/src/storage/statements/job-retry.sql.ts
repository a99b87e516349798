import { lockedInIdOrder } from './locked-in-id-order';
import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * DEAD/CANCELLED → PENDING with a fresh attempt budget, ready now, for each of `ids` whose type is one of `types`
 * (those a worker of the deployment may run), in one statement and one commit. The error history is kept. A row comes
 * back for each job retried; a listed job missing, in another state or of another type has none, and the caller
 * settles it on its own.
 *
 * - The rows are locked in id order first (`lockedInIdOrder`), so a list cannot deadlock with the other statements
 *   that wait for several job rows. Callers bound the list (MAX_BULK_IDS), which bounds the locks one transaction
 *   holds.
 * - A retried job whose (type, unique_key) a waiting or running job holds, or another listed job takes in the same
 *   statement, trips the `conveyor_jobs_unique_key` index: the whole statement fails and changes nothing. A key
 *   another transaction has taken but not committed makes the statement wait while it holds the keys it took: two
 *   such statements (or one and a batch insert) taking the same keys in other orders can deadlock, and PostgreSQL
 *   aborts one of them, which changes nothing either.
 * - An update trips no insert trigger: the caller wakes the claimers (jobsNotifyReady).
 */
export function jobRetry(t: SqlTables, ids: readonly string[], types: readonly string[]): Statement {
  return {
    text: `
WITH ${lockedInIdOrder(t.jobs, '$1::uuid[]', { where: `status IN ('DEAD','CANCELLED') AND type = ANY($2::text[])` })}
UPDATE ${t.jobs} SET status = 'PENDING', attempts = 0, snoozes = 0, run_at = now(), started_at = NULL,
  finished_at = NULL, updated_at = now(), version = version + 1
WHERE id = ANY(ARRAY(SELECT id FROM locked)) AND status IN ('DEAD','CANCELLED') AND type = ANY($2::text[])
RETURNING ${JOB_COLUMNS}`,
    values: [ids, types],
  };
}
