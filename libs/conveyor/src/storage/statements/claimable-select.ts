import { CLAIMABLE_SQL } from './statement';

/**
 * The head of the queue a worker may take: due, claimable, of its types, outside excluded and paused
 * queues, in the claim index's (priority, run_at) order. Shared by both claim statements, so they always
 * mean the same rows. `columns` are what it selects of each row `c`; its inputs are the claim statements'
 * first four parameters: $1 types, $2 excluded queues, $3 only these queues (or null), $4 limit.
 *
 * Paused queues are read once per statement (an InitPlan over the paused-queues index)
 * instead of probing the queues table for every candidate row (`NOT EXISTS` per row: two buffer reads each).
 */
export function claimableSelect(jobs: string, queues: string, columns: string): string {
  return `SELECT ${columns} FROM ${jobs} c
  WHERE c.status IN ${CLAIMABLE_SQL} AND c.run_at <= now()
    AND c.type = ANY($1::text[])
    AND NOT (c.queue = ANY($2::text[]))
    AND ($3::text[] IS NULL OR c.queue = ANY($3::text[]))
    AND NOT (c.queue = ANY(ARRAY(SELECT q.name FROM ${queues} q WHERE q.paused)))
  ORDER BY c.priority, c.run_at
  LIMIT $4::int`;
}
