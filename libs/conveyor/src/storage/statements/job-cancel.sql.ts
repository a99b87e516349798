import { CLAIMABLE_SQL, JOB_COLUMNS, SqlTables, Statement } from './statement';

/** SCHEDULED/PENDING/RETRYING → CANCELLED. No row back means the job is missing or in another state. */
export function jobCancel(t: SqlTables, id: string): Statement {
  return {
    text: `
UPDATE ${t.jobs} SET status = 'CANCELLED', finished_at = now(), updated_at = now(), version = version + 1
WHERE id = $1 AND status IN ${CLAIMABLE_SQL}
RETURNING ${JOB_COLUMNS}`,
    values: [id],
  };
}
