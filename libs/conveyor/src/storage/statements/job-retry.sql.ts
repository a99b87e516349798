import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * DEAD/CANCELLED → PENDING with a fresh attempt budget, ready now. The error history is kept.
 * No row back means the job is missing or in another state.
 */
export function jobRetry(t: SqlTables, id: string): Statement {
  return {
    text: `
UPDATE ${t.jobs} SET status = 'PENDING', attempts = 0, snoozes = 0, run_at = now(), started_at = NULL,
  finished_at = NULL, updated_at = now(), version = version + 1
WHERE id = $1 AND status IN ('DEAD','CANCELLED')
RETURNING ${JOB_COLUMNS}`,
    values: [id],
  };
}
