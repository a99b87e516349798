import { SqlTables, Statement } from './statement';

/** Retention: deletes up to `limit` COMPLETED jobs that finished more than `olderThanMs` ago. */
export function jobDeleteCompleted(t: SqlTables, olderThanMs: number, limit: number): Statement {
  return {
    text: `
DELETE FROM ${t.jobs} WHERE id IN (
  SELECT id FROM ${t.jobs}
  WHERE status = 'COMPLETED' AND finished_at < now() - $1 * interval '1 millisecond'
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)`,
    values: [olderThanMs, limit],
  };
}
