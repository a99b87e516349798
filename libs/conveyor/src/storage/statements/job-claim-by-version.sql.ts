import { ClaimFilter } from './claim-filter.interface';
import { ClaimStamp, claimSet } from './claim-set';
import { claimableSelect } from './claimable-select';
import { payloadSizedColumns, withinPayloadBudget } from './claim-payload-budget';
import { CLAIMED_JOB_COLUMNS } from './claimed-row.codec';
import { SqlTables, Statement } from './statement';

/**
 * The optimistic claim, in one statement (one round trip, like the skip-locked claim): read the head of
 * the queue without taking any lock, noting each row's version column, then compare-and-set every
 * candidate on that version.
 *
 * - `candidates` is the optimistic read: no lock, so it may pick rows another worker is claiming at the
 *   same moment. It must run on the worker connection (planner settings: see WorkerConnection).
 * - `won` locks the candidates whose version is still the one read. A row another worker claimed after
 *   this statement's snapshot is re-read at its newest version when locked (READ COMMITTED), its version
 *   no longer matches, and it drops out: that worker won the race. A row locked right now is skipped rather
 *   than waited for: it is being claimed by another worker, or finished by the worker that already holds
 *   it. Waiting was not safe: PostgreSQL keeps the lock on a row whose re-check failed, so a claimer could
 *   hold a lock on another worker's RUNNING row while waiting for a second one that worker's batched
 *   completion had already updated — and that completion waited for the first (a deadlock, seen with two
 *   processes draining 20,000 jobs). A claimer that never waits cannot be part of a cycle.
 * - The version is the only state check: every statement that changes a job's status bumps its version,
 *   so an unchanged version means the job is still in the claimable state the read saw.
 * - The read may take a wider `window` than the `f.limit` rows wanted; `won` locks the first `f.limit` it
 *   can (locking stops there), first in claim order: its plan walks the candidates in the order the read found
 *   them and fetches each row by tuple id (a nested loop with the candidates outside, checked by the claim-plan
 *   test), so rows further back are taken only when those before them are held. A caller that just lost the
 *   head of the queue to a competitor whose claim is still running reads past the rows that competitor holds
 *   instead of racing for them again.
 * - The answer always carries `candidates`, how many rows the read found, so the caller can tell a race
 *   lost (fewer won than wanted and read: read again) from a short queue. It rides on every row won, and a
 *   statement that won nothing answers one row whose job columns are null: an empty answer could not tell a
 *   worker that lost every row it read from one that found none.
 * - Rows are carried from step to step by their tuple id (`ctid`), not their primary key: `won` and the
 *   UPDATE fetch each row directly instead of descending the primary-key index twice more per row
 *   (docs/performance.md, "Design notes from measurements"). A tuple id names one row version, which is exactly
 *   the compare-and-set wanted: a row updated since the read has a new version at a new tid, so locking
 *   re-checks `j.ctid` against the newest version, the check fails and the row drops out, as a changed
 *   version does. The rows `won` returns are locked by this statement, so their tids cannot change
 *   before the UPDATE reads them.
 * - A claim with a payload budget (`f.maxPayloadBytes`, $9) updates only the rows of `won` the budget takes (`kept`,
 *   withinPayloadBudget, $10 the stored bytes this claim's earlier rounds took); the others are left as they were. Its
 *   answer also carries `locked`, how many rows `won` locked, so the caller can tell a budget spent (fewer kept than
 *   locked) from a race lost, and `kept_bytes`, the stored bytes kept. Without one, the statement is the poller's,
 *   unchanged.
 */
export function jobClaimByVersion(t: SqlTables, f: ClaimFilter, stamp: ClaimStamp, window = f.limit, spentBytes = 0): Statement {
  const budget = f.maxPayloadBytes ?? null;
  const values = [
    f.types,
    f.excludedQueues,
    f.onlyQueues ?? null,
    Math.max(window, f.limit),
    stamp.workerId,
    stamp.leaseMs,
    stamp.token,
    f.limit,
  ];
  // What a payload budget adds; without one, every piece is the poller's.
  const wonColumns = budget === null ? 'j.ctid AS tid' : payloadSizedColumns('j');
  const kept = budget === null ? '' : `, kept AS (\n  ${withinPayloadBudget('won', '$9', '$10')}\n)`;
  const taken = budget === null ? 'won' : 'kept';
  const head = budget === null ? '' : ', head.locked, head.kept_bytes';
  const headCounts = budget === null ? '' : BUDGET_COUNTS;
  return {
    name: budget === null ? `job_claim_ver_${t.key}` : `job_claim_ver_budget_${t.key}`,
    text: `
WITH candidates AS MATERIALIZED (
  ${claimableSelect(t.jobs, t.queues, 'c.ctid AS tid, c.version')}
), won AS (
  SELECT ${wonColumns} FROM ${t.jobs} j
  JOIN candidates c ON c.tid = j.ctid AND c.version = j.version
  WHERE j.ctid = ANY(ARRAY(SELECT tid FROM candidates))
  LIMIT $8::int
  FOR NO KEY UPDATE OF j SKIP LOCKED
)${kept}, claimed AS (
  UPDATE ${t.jobs} j SET ${claimSet('j', '$5', '$6', '$7')}
  WHERE j.ctid = ANY(ARRAY(SELECT tid FROM ${taken}))
  RETURNING ${CLAIMED_JOB_COLUMNS('j')}
)
SELECT claimed.*, head.candidates${head}
FROM (SELECT count(*)::int AS candidates${headCounts} FROM candidates) head
LEFT JOIN claimed ON true`,
    values: budget === null ? values : [...values, budget, spentBytes],
    rowMode: 'array',
  };
}

/** What a claim with a payload budget counts beside `candidates`: the rows `won` locked and the stored bytes `kept` took. */
const BUDGET_COUNTS = `,
  (SELECT count(*)::int FROM won) AS locked, (SELECT coalesce(sum(size), 0)::bigint FROM kept) AS kept_bytes`;
