import { CLAIMABLE_SQL, SqlTables, Statement } from './statement';

/**
 * Jobs a worker running `types` still has to deal with: due and claimable outside paused queues, or RUNNING
 * under its own claim (claimed, not yet handed to the pool). The testing helper's "queue drained" test.
 */
export function jobCountDrainable(t: SqlTables, types: string[], workerId: string): Statement {
  return {
    text: `
SELECT count(*)::int AS count FROM ${t.jobs} j
WHERE j.type = ANY($1::text[])
  AND ((j.status IN ${CLAIMABLE_SQL} AND j.run_at <= now()
        AND NOT (j.queue = ANY(ARRAY(SELECT q.name FROM ${t.queues} q WHERE q.paused))))
    OR (j.status = 'RUNNING' AND j.locked_by = $2))`,
    values: [types, workerId],
  };
}
