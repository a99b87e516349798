import { claimSet } from './claim-set';
import { CLAIMABLE_SQL, CLAIMED_JOB_COLUMNS, SqlTables, Statement } from './statement';

/**
 * Optimistic claim, step 2: compare-and-set every candidate on its @VersionColumn in one statement.
 * A row another worker claimed first has a new version (and is RUNNING), so it is simply not updated.
 * Candidates are passed sorted by id so two workers touch shared rows in the same order and cannot deadlock.
 */
export function jobClaimByVersion(
  t: SqlTables,
  candidates: { id: string; version: number }[],
  workerId: string,
  leaseMs: number,
): Statement {
  const sorted = [...candidates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    name: `job_claim_ver_${t.key}`,
    text: `
UPDATE ${t.jobs} j SET ${claimSet('j', '$3', '$4')}
FROM (SELECT * FROM unnest($1::uuid[], $2::int[]) AS u(id, version) ORDER BY u.id) AS c
WHERE j.id = ANY($1::uuid[]) AND j.id = c.id AND j.version = c.version AND j.status IN ${CLAIMABLE_SQL}
RETURNING ${CLAIMED_JOB_COLUMNS('j')}`,
    values: [sorted.map((c) => c.id), sorted.map((c) => c.version), workerId, leaseMs],
  };
}
