import { ClaimFilter } from './claim-filter.interface';
import { ClaimStamp, claimSet } from './claim-set';
import { claimableSelect } from './claimable-select';
import { payloadSizedColumns, withinPayloadBudget } from './claim-payload-budget';
import { CLAIMED_JOB_COLUMNS } from './claimed-row.codec';
import { SqlTables, Statement } from './statement';

/**
 * Claims up to `limit` due jobs in one statement. The inner query walks the partial claim index in
 * (priority, run_at) order and skips rows another transaction holds, so concurrent workers never wait on
 * each other and never take the same row; the locks it takes last until this statement ends. It must run
 * on the worker connection (planner settings that keep it on the index: see WorkerConnection).
 *
 * The UPDATE reaches the picked rows by tuple id (`ctid = ANY(ARRAY(…))`, a TID scan) rather than by
 * primary key: each row is fetched directly instead of descending the primary-key index once more
 * (docs/performance.md, "Design notes from measurements"). The ids are those of row versions this statement
 * has just locked, so no one else can update them before the UPDATE reads them. In the one race where
 * the lock step had to follow a row to a newer version (another transaction changed it after this
 * statement's snapshot, and it is still claimable), the UPDATE does not see that version and leaves the
 * row out: a row can drop out of a claim, never be claimed twice. `= ANY(ARRAY(…))` rather than a join,
 * which would let the planner hash-join against a sequential scan of the whole table.
 *
 * A claim with a payload budget (`f.maxPayloadBytes`, $8) updates only the locked rows the budget takes
 * (withinPayloadBudget); the others are left as they were. Without one, the statement is the poller's, unchanged.
 */
export function jobClaimSkipLocked(t: SqlTables, f: ClaimFilter, stamp: ClaimStamp): Statement {
  const budget = f.maxPayloadBytes ?? null;
  const values = [f.types, f.excludedQueues, f.onlyQueues ?? null, f.limit, stamp.workerId, stamp.leaseMs, stamp.token];
  const locked = `${claimableSelect(t.jobs, t.queues, budget === null ? 'c.ctid' : payloadSizedColumns('c'))}
  FOR UPDATE OF c SKIP LOCKED`;
  const picked = budget === null ? locked : `SELECT b.tid FROM (${withinPayloadBudget(`(${locked})`, '$8')}) b`;
  return {
    name: budget === null ? `job_claim_sl_${t.key}` : `job_claim_sl_budget_${t.key}`,
    text: `
UPDATE ${t.jobs} j SET ${claimSet('j', '$5', '$6', '$7')}
WHERE j.ctid = ANY(ARRAY(${picked}))
RETURNING ${CLAIMED_JOB_COLUMNS('j')}`,
    values: budget === null ? values : [...values, budget],
    rowMode: 'array',
  };
}
