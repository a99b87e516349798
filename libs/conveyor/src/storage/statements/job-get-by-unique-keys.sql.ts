import { JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * The waiting or running jobs holding these (type, unique key) pairs — read through the partial
 * `conveyor_jobs_unique_key` index, whose predicate the WHERE clause repeats so the planner can use it.
 */
export function jobGetByUniqueKeys(t: SqlTables, pairs: Array<{ type: string; key: string }>): Statement {
  return {
    text: `
SELECT ${JOB_COLUMNS}, idempotency_hash FROM ${t.jobs}
WHERE (type, unique_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))
  AND unique_key IS NOT NULL AND status IN ('SCHEDULED','PENDING','RETRYING','RUNNING')`,
    values: [pairs.map((p) => p.type), pairs.map((p) => p.key)],
  };
}
