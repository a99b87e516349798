import { LONG_STATEMENT_DEADLINE_MS } from '../connections/sql-runner.interface';
import { LeaderTerm, leaderFence } from './leadership.sql';
import { SqlTables, Statement } from './statement';

/**
 * Retention: deletes up to `limit` COMPLETED jobs that finished more than `olderThanMs` ago; the current leadership
 * term only. Answers each deleted job's id, queue and type, which its live `DELETED` item carries.
 */
export function jobDeleteCompleted(t: SqlTables, olderThanMs: number, limit: number, lease: LeaderTerm): Statement {
  return {
    text: `
DELETE FROM ${t.jobs} WHERE id IN (
  SELECT id FROM ${t.jobs}
  WHERE status = 'COMPLETED' AND finished_at < now() - $1 * interval '1 millisecond' AND ${leaderFence(t, '$3', '$4')}
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)
RETURNING id, queue, type`,
    values: [olderThanMs, limit, lease.holder, lease.term],
    deadlineMs: LONG_STATEMENT_DEADLINE_MS,
  };
}
