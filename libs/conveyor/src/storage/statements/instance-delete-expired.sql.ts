import { instancesTable } from './instances-table';
import { LeaderTerm, leaderFence } from './leadership.sql';
import { SqlTables, Statement } from './statement';

/** Deletes the rows of instances that stopped heartbeating (they died), as long as `term` leads. */
export function instanceDeleteExpired(t: SqlTables, term: LeaderTerm): Statement {
  return {
    text: `DELETE FROM ${instancesTable(t)} WHERE expires_at <= now() AND ${leaderFence(t, '$1', '$2')}`,
    values: [term.holder, term.term],
  };
}
