import { SqlTables, Statement } from './statement';

/** One row of a heartbeat round's answer. */
export interface ExtendedLeaseRow {
  id: string;
  /**
   * Whether the lease was extended. False for a row another transaction held locked (an outcome write of this
   * worker in flight, the handler's own progress report or heartbeat, the sweeper's rescue, an operator's action):
   * the statement passed it by, so its lease is unchanged and whether this worker still owns it is not known until a
   * later round. A handler that reports often has its row passed by often, so its reports extend the lease
   * themselves (jobSetProgress).
   */
  extended: boolean;
}

/**
 * A heartbeat round: pushes out the lease of every job this worker still owns, in one statement.
 * A held job missing from the answer is no longer owned (rescued, cancelled: it belongs to someone else now).
 *
 * The round never waits for a row lock (SKIP LOCKED). One held job's row may stay locked for a long time — its
 * outcome write storing a result of many megabytes, a user's transaction holding it — and a round that waited for
 * it would extend none of the other leases meanwhile, so the sweeper would take jobs that are running or whose
 * outcomes are queued. A row passed by comes back with `extended` false; a row that no longer exists does not come
 * back (one deleted by a transaction that committed after the round's snapshot comes back once more as passed by).
 * Since it waits for nothing, it cannot close a lock cycle with the outcome writes (which lock in id order) either.
 */
export function jobExtendLeases(t: SqlTables, held: { id: string; token: string }[], leaseMs: number): Statement {
  return {
    name: `job_heartbeat_${t.key}`,
    text: `
WITH locked AS (
  SELECT id FROM ${t.jobs} WHERE id = ANY($1::uuid[]) FOR NO KEY UPDATE SKIP LOCKED
), extended AS (
  UPDATE ${t.jobs} j SET locked_until = now() + $3 * interval '1 millisecond'
  FROM unnest($1::uuid[], $2::uuid[]) AS h(id, token)
  WHERE j.id = ANY(ARRAY(SELECT id FROM locked)) AND j.id = h.id AND j.lease_token = h.token AND j.status = 'RUNNING'
  RETURNING j.id
)
SELECT id, true AS extended FROM extended
UNION ALL
SELECT p.id, false AS extended FROM unnest($1::uuid[]) AS p(id)
WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l.id = p.id) AND EXISTS (SELECT 1 FROM ${t.jobs} WHERE id = p.id)`,
    values: [held.map((h) => h.id), held.map((h) => h.token), leaseMs],
  };
}

/**
 * Extends one job's lease (a handler's own heartbeat, an HTTP worker's), only while it is RUNNING under that lease
 * token; no row back means the claim is gone. It waits for the row if another transaction holds it, to answer
 * whether the claim is still there; a statement that locks one row holds nothing while it waits, so it cannot
 * close a lock cycle.
 */
export function jobExtendLease(t: SqlTables, lease: { id: string; token: string }, leaseMs: number): Statement {
  return {
    name: `job_extend_lease_${t.key}`,
    text: `
UPDATE ${t.jobs} SET locked_until = now() + $3 * interval '1 millisecond'
WHERE id = $1 AND lease_token = $2::uuid AND status = 'RUNNING'
RETURNING id, locked_until`,
    values: [lease.id, lease.token, leaseMs],
  };
}
