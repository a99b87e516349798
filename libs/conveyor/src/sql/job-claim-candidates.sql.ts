import { ClaimFilter } from './claim-filter.interface';
import { CLAIMABLE_PARAMS, claimableSelect } from './claimable-select';
import { SqlTables, Statement } from './statement';

/**
 * Optimistic claim, step 1: read the head of the queue with no lock, noting each row's version. Runs on a
 * claim connection, whose planner settings keep it on the claim index (see ClaimConnections).
 */
export function jobClaimCandidates(t: SqlTables, f: ClaimFilter): Statement {
  return {
    name: `job_claim_cand_${t.key}`,
    text: claimableSelect(t.jobs, t.queues, CLAIMABLE_PARAMS),
    values: [f.types, f.excludedQueues, f.onlyQueues ?? null, f.limit],
  };
}
