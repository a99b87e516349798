import { claimSet } from './claim-set';
import { CLAIMED_JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * Optimistic claim, step 2: compare-and-set every candidate on its @VersionColumn in one statement.
 * A row another worker claimed first has a new version (and is RUNNING), so it is simply not updated.
 *
 * Two claimers may race for overlapping candidates. The candidates are locked first, in id order, and a
 * row locked by anyone else is skipped rather than waited for: it is being claimed by another worker (it
 * won that race) or finished by the worker that already claimed it. Waiting was not safe: PostgreSQL
 * keeps the lock on a row whose re-check failed (a candidate claimed elsewhere in the meantime), so a
 * claimer could hold a lock on another worker's RUNNING row while waiting for a second one that worker's
 * batched completion had already updated — and that completion waited for the first: a deadlock, seen
 * with two processes draining 20,000 jobs. A claimer that never waits cannot be part of a cycle.
 * The version check still decides the race: a candidate whose version moved on is not updated. It is also
 * the only state check: every statement that changes a job's status bumps its version, so an unchanged
 * version means the job is still in the claimable state the candidate read saw. Spelling out
 * `status IN (claimable)` as well let the planner read the rows through the partial claim index and filter
 * them by id — every waiting job, on every claim (9,900 rows removed by filter at 10,000 queued) — instead
 * of 100 primary-key lookups.
 * The UPDATE then finds the locked rows by primary key.
 */
export function jobClaimByVersion(
  t: SqlTables,
  candidates: { id: string; version: number }[],
  workerId: string,
  leaseMs: number,
): Statement {
  return {
    name: `job_claim_ver_${t.key}`,
    text: `
WITH locked AS (
  SELECT j.id FROM ${t.jobs} j
  JOIN unnest($1::uuid[], $2::int[]) AS c(id, version) ON c.id = j.id AND c.version = j.version
  WHERE j.id = ANY($1::uuid[])
  ORDER BY j.id
  FOR NO KEY UPDATE OF j SKIP LOCKED
)
UPDATE ${t.jobs} j SET ${claimSet('j', '$3', '$4')}
WHERE j.id = ANY(ARRAY(SELECT id FROM locked))
RETURNING ${CLAIMED_JOB_COLUMNS('j')}`,
    values: [candidates.map((c) => c.id), candidates.map((c) => c.version), workerId, leaseMs],
  };
}
