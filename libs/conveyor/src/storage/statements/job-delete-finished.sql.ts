import { SqlTables, Statement } from './statement';

/** Purges one job in a terminal state (an operator clearing a DEAD job). No row back: missing or not terminal. */
export function jobDeleteFinished(t: SqlTables, id: string): Statement {
  return {
    text: `DELETE FROM ${t.jobs} WHERE id = $1 AND status IN ('COMPLETED','DEAD','CANCELLED') RETURNING id, queue, type`,
    values: [id],
  };
}
