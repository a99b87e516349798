import { ClaimFilter } from './claim-filter.interface';
import { SqlTables, Statement } from './statement';

/** Optimistic claim, step 1: read the head of the queue with no lock, noting each row's version. */
export function jobClaimCandidates(t: SqlTables, f: ClaimFilter): Statement {
  return {
    name: `job_claim_cand_${t.key}`,
    text: `SELECT p.id, p.version FROM ${t.schema}.conveyor_claimable_peek($1::text[], $2::text[], $3::text[], $4::int) p`,
    values: [f.types, f.excludedQueues, f.onlyQueues ?? null, f.limit],
  };
}
