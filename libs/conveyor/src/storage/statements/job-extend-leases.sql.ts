import { lockedInIdOrder } from './locked-in-id-order';
import { SqlTables, Statement } from './statement';

/**
 * Heartbeat: pushes out the lease of every job this worker still owns, in one statement.
 * Returns the ids still owned (with their new `locked_until`); a held job missing from the answer was
 * rescued and belongs to someone else. The rows are locked in id order first (`lockedInIdOrder`): the heartbeat
 * runs on the pool while the same jobs' outcomes are written on the worker connection, and the two must not wait
 * for each other in a cycle.
 */
export function jobExtendLeases(t: SqlTables, held: { id: string; token: string }[], leaseMs: number): Statement {
  return {
    name: `job_heartbeat_${t.key}`,
    text: `
WITH ${lockedInIdOrder(t.jobs, '$1::uuid[]')}
UPDATE ${t.jobs} j SET locked_until = now() + $3 * interval '1 millisecond'
FROM unnest($1::uuid[], $2::uuid[]) AS h(id, token)
WHERE j.id = ANY(ARRAY(SELECT id FROM locked)) AND j.id = h.id AND j.lease_token = h.token AND j.status = 'RUNNING'
RETURNING j.id, j.locked_until`,
    values: [held.map((h) => h.id), held.map((h) => h.token), leaseMs],
  };
}
