import { ClaimFilter } from './claim-filter.interface';
import { claimNonce, claimSet } from './claim-set';
import { CLAIMABLE_PARAMS, claimableSelect } from './claimable-select';
import { CLAIMED_JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * Claims up to `limit` due jobs in one statement. The inner query walks the partial claim index in
 * (priority, run_at) order and skips rows another transaction holds, so concurrent workers never wait on
 * each other and never take the same row; the locks it takes last until this statement ends. It must run
 * on the worker connection (planner settings that keep it on the index: see WorkerConnection). The UPDATE
 * finds the picked rows with `= ANY(ARRAY(…))`, a primary-key lookup: a join would let the planner
 * hash-join against a sequential scan of the whole table, which grows with every finished row kept.
 */
export function jobClaimSkipLocked(t: SqlTables, f: ClaimFilter, workerId: string, leaseMs: number): Statement {
  return {
    name: `job_claim_sl_${t.key}`,
    text: `
UPDATE ${t.jobs} j SET ${claimSet('j', '$5', '$6', '$7')}
WHERE j.id = ANY(ARRAY(${claimableSelect(t.jobs, t.queues, CLAIMABLE_PARAMS, 'c.id')}
  FOR UPDATE OF c SKIP LOCKED))
RETURNING ${CLAIMED_JOB_COLUMNS('j')}`,
    values: [f.types, f.excludedQueues, f.onlyQueues ?? null, f.limit, workerId, leaseMs, claimNonce()],
  };
}
