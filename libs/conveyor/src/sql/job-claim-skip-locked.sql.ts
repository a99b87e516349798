import { ClaimFilter } from './claim-filter.interface';
import { claimSet } from './claim-set';
import { CLAIMABLE_SQL, jobColumns, SqlTables, Statement } from './statement';

/**
 * Claims up to `limit` due jobs in one statement. The inner SELECT walks the partial claim index in
 * (priority, run_at) order and skips rows another transaction holds, so concurrent workers never wait
 * on each other and never take the same row.
 */
export function jobClaimSkipLocked(t: SqlTables, f: ClaimFilter, workerId: string, leaseMs: number): Statement {
  return {
    name: `job_claim_sl_${t.key}`,
    text: `
WITH picked AS (
  SELECT c.id FROM ${t.jobs} c
  WHERE c.status IN ${CLAIMABLE_SQL} AND c.run_at <= now()
    AND c.type = ANY($1::text[])
    AND NOT (c.queue = ANY($2::text[]))
    AND ($6::text[] IS NULL OR c.queue = ANY($6::text[]))
    AND NOT EXISTS (SELECT 1 FROM ${t.queues} q WHERE q.name = c.queue AND q.paused)
  ORDER BY c.priority, c.run_at
  LIMIT $3
  FOR UPDATE OF c SKIP LOCKED
)
UPDATE ${t.jobs} j SET ${claimSet('j', '$4', '$5')}
FROM picked WHERE j.id = picked.id
RETURNING ${jobColumns('j')}`,
    values: [f.types, f.excludedQueues, f.limit, workerId, leaseMs, f.onlyQueues ?? null],
  };
}
