import { CLAIMABLE_SQL, JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * Makes a waiting job (SCHEDULED, PENDING or RETRYING) due now: `run_at` moves to now unless it is already past,
 * status, attempts and error history stay. The insert trigger does not see an update, so the caller wakes the
 * claimers. No row back means the job is missing or in another state.
 */
export function jobRunNow(t: SqlTables, id: string): Statement {
  return {
    text: `
UPDATE ${t.jobs} SET run_at = least(run_at, now()), updated_at = now(), version = version + 1
WHERE id = $1 AND status IN ${CLAIMABLE_SQL}
RETURNING ${JOB_COLUMNS}`,
    values: [id],
  };
}
