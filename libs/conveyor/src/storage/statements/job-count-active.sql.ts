import { SqlTables, Statement } from './statement';

/**
 * Counts of the non-finished states plus DEAD, one row per state (0 when none). Each branch's filter is a
 * constant that is the predicate of one partial index (claimable, lease, attention), so only those rows are read
 * and the history (COMPLETED, CANCELLED) never is. A count correlated on the status (`WHERE status = s.status`)
 * cannot be proven to match any partial index and reads the whole table once per state.
 */
export function jobCountActive(t: SqlTables): Statement {
  return {
    text: `
SELECT s.status, coalesce(c.count, 0)::int AS count
FROM unnest(ARRAY['SCHEDULED','PENDING','RUNNING','RETRYING','DEAD']) AS s(status)
LEFT JOIN (
  SELECT status, count(*) AS count FROM ${t.jobs} WHERE status IN ('SCHEDULED','PENDING','RETRYING') GROUP BY status
  UNION ALL
  SELECT 'RUNNING', count(*) FROM ${t.jobs} WHERE status = 'RUNNING'
  UNION ALL
  SELECT 'DEAD', count(*) FROM ${t.jobs} WHERE status = 'DEAD'
) c ON c.status = s.status
ORDER BY array_position(ARRAY['SCHEDULED','PENDING','RUNNING','RETRYING','DEAD'], s.status)`,
    values: [],
  };
}
