import { SqlTables, Statement } from './statement';

/**
 * Heartbeat: pushes out the lease of every job this worker still owns, in one statement.
 * Returns the ids still owned (with their new `locked_until`); a held job missing from the answer was
 * rescued and belongs to someone else.
 */
export function jobExtendLeases(t: SqlTables, held: { id: string; token: string }[], leaseMs: number): Statement {
  return {
    name: `job_heartbeat_${t.key}`,
    text: `
UPDATE ${t.jobs} j SET locked_until = now() + $3 * interval '1 millisecond'
FROM unnest($1::uuid[], $2::uuid[]) AS h(id, token)
WHERE j.id = ANY($1::uuid[]) AND j.id = h.id AND j.lease_token = h.token AND j.status = 'RUNNING'
RETURNING j.id, j.locked_until`,
    values: [held.map((h) => h.id), held.map((h) => h.token), leaseMs],
  };
}
