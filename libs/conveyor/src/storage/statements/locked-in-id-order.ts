/** Which of the listed rows a statement locks, and how. */
export interface LockedRows {
  /**
   * A condition the rows must also meet, such as the state the statement's change applies to. A row another
   * transaction changed while the statement waited for it is checked again on its newest version.
   */
  where?: string;
  /** The lock the statement's own change takes: `FOR NO KEY UPDATE` for an UPDATE (the default), `FOR UPDATE` for a DELETE. */
  strength?: 'FOR NO KEY UPDATE' | 'FOR UPDATE';
}

/**
 * The lock order of every statement that changes several job rows it is given by id and may wait for them
 * (outcome writes, the operator actions cancel, retry and delete, which take up to MAX_BULK_IDS jobs):
 * a CTE `locked` that locks the listed rows in id order, through which the statement's UPDATE or DELETE then
 * reaches its rows (`WHERE j.id = ANY(ARRAY(SELECT id FROM locked))`).
 *
 * A plain `UPDATE … WHERE id = ANY(…)` locks its rows in the order its plan visits them: id order through the
 * primary key, the order they lie in the table through a sequential or bitmap scan, the order of the list
 * through a nested loop over it. Plans differ between connections (the worker connection's planner settings)
 * and with the table's statistics, so two such statements over the same rows (an operator's bulk cancel on the
 * pool and an outcome batch on the worker connection) could each hold a row the other was waiting for, and
 * PostgreSQL would abort one of them as a deadlock. A locking SELECT with ORDER BY locks its rows in that order
 * (the lock step runs on the sorted rows), so statements that all lock this way wait for one another only in id
 * order, which cannot close a cycle.
 *
 * - The `ARRAY(SELECT id FROM locked)` is computed before the UPDATE or DELETE reads its first row, so every lock
 *   is taken, in order, before any row changes; the change then waits for nothing.
 * - The lock is the one the change itself takes (`strength`), so it never has to upgrade it.
 * - The change reaches the rows by id, not by tuple id as the claims do: a row another transaction changed
 *   while this statement waited for it has a newer version that the statement's snapshot does not see; a TID
 *   scan would drop it, while a change through the primary key re-checks its guard on the newest version.
 * - Rows are locked by id and `where` alone. A row whose lease token no longer matches (a stale outcome, which is
 *   rare) is locked and then left as it is by the UPDATE's own guard; pairing every id with its token here as well
 *   would cost a comparison per pair of row and token.
 *
 * Statements that never wait need no order, since a statement that does not wait cannot be part of a cycle:
 * the claims, the heartbeat round (jobExtendLeases), the lease rescue, retention and the filtered bulk retry
 * (jobRetryMany) take their rows with SKIP LOCKED, and the single-row statements hold nothing while they wait.
 */
export function lockedInIdOrder(jobs: string, ids: string, rows: LockedRows = {}): string {
  const where = rows.where ? ` AND ${rows.where}` : '';
  return `locked AS (
  SELECT id FROM ${jobs} WHERE id = ANY(${ids})${where} ORDER BY id ${rows.strength ?? 'FOR NO KEY UPDATE'}
)`;
}
