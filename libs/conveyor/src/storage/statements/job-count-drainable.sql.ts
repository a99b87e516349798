import { CLAIMABLE_SQL, SqlTables, Statement } from './statement';

/**
 * Jobs a worker running `types` still has to deal with, counted apart: `due` and claimable outside paused queues, or
 * `running` under its own claim (claimed, not yet handed to the pool, or not yet written back). The testing helper's
 * "queue drained" test.
 */
export function jobCountDrainable(t: SqlTables, types: string[], workerId: string): Statement {
  return {
    text: `
SELECT count(*) FILTER (WHERE j.status <> 'RUNNING')::int AS due,
       count(*) FILTER (WHERE j.status = 'RUNNING')::int AS running
FROM ${t.jobs} j
WHERE j.type = ANY($1::text[])
  AND ((j.status IN ${CLAIMABLE_SQL} AND j.run_at <= now()
        AND NOT (j.queue = ANY(ARRAY(SELECT q.name FROM ${t.queues} q WHERE q.paused))))
    OR (j.status = 'RUNNING' AND j.locked_by = $2))`,
    values: [types, workerId],
  };
}
