import { ClaimFilter } from './claim-filter.interface';
import { CLAIMABLE_SQL, SqlTables, Statement } from './statement';

/** Optimistic claim, step 1: read the head of the queue with no lock, noting each row's version. */
export function jobClaimCandidates(t: SqlTables, f: ClaimFilter): Statement {
  return {
    name: `job_claim_cand_${t.key}`,
    text: `
SELECT c.id, c.version FROM ${t.jobs} c
WHERE c.status IN ${CLAIMABLE_SQL} AND c.run_at <= now()
  AND c.type = ANY($1::text[])
  AND NOT (c.queue = ANY($2::text[]))
  AND ($4::text[] IS NULL OR c.queue = ANY($4::text[]))
  AND NOT EXISTS (SELECT 1 FROM ${t.queues} q WHERE q.name = c.queue AND q.paused)
ORDER BY c.priority, c.run_at
LIMIT $3`,
    values: [f.types, f.excludedQueues, f.limit, f.onlyQueues ?? null],
  };
}
