import { claimSet } from './claim-set';
import { CLAIMABLE_SQL, CLAIMED_JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * Optimistic claim, step 2: compare-and-set every candidate on its @VersionColumn in one statement.
 * A row another worker claimed first has a new version (and is RUNNING), so it is simply not updated.
 *
 * Two claimers may race for overlapping candidates, and an UPDATE locks rows in whatever order its plan
 * meets them — so the rows are first locked in id order (the locking clause sits above the sort, so the
 * order is guaranteed), and two claimers can only ever wait for each other, never deadlock. After waiting,
 * PostgreSQL re-checks the version and state on the newest row version, so a lost race drops the row.
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
  WHERE j.id = ANY($1::uuid[]) AND j.status IN ${CLAIMABLE_SQL}
  ORDER BY j.id
  FOR NO KEY UPDATE OF j
)
UPDATE ${t.jobs} j SET ${claimSet('j', '$3', '$4')}
WHERE j.id = ANY(ARRAY(SELECT id FROM locked))
RETURNING ${CLAIMED_JOB_COLUMNS('j')}`,
    values: [candidates.map((c) => c.id), candidates.map((c) => c.version), workerId, leaseMs],
  };
}
