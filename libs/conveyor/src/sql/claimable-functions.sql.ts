import { CLAIMABLE_SQL } from './statement';

/**
 * DDL of the two functions that find claimable jobs; created by a migration, called by the claim statements.
 *
 * Why functions: the claim must walk the partial claim index in (priority, run_at) order and stop after
 * `lim` rows. PostgreSQL picks that plan only when its statistics say many rows are claimable; right after a
 * burst of inserts (before autovacuum re-analyses the table) it believes there are a handful, and instead
 * bitmap-scans every claimable row and sorts them — 9 ms at 5,000 queued jobs, seconds at a million.
 * A function may carry its own planner settings, so these two forbid the sort, bitmap and sequential paths
 * for their one query without touching any other query on the connection. They are PL/pgSQL, which keeps
 * the query's plan between calls (an SQL-language function with SET clauses is planned on every call).
 *
 * - `conveyor_claimable_lock`: the ids to claim, row-locked with SKIP LOCKED (skip-locked strategy).
 * - `conveyor_claimable_peek`: ids and versions with no lock at all (optimistic strategy).
 */
export function claimableFunctionsDdl(schema: string, jobs: string, queues: string): string {
  const body = `
  RETURN QUERY SELECT c.id, c.version FROM ${jobs} c
  WHERE c.status IN ${CLAIMABLE_SQL} AND c.run_at <= now()
    AND c.type = ANY(types)
    AND NOT (c.queue = ANY(excluded_queues))
    AND (only_queues IS NULL OR c.queue = ANY(only_queues))
    AND NOT EXISTS (SELECT 1 FROM ${queues} q WHERE q.name = c.queue AND q.paused)
  ORDER BY c.priority, c.run_at
  LIMIT lim`;
  const signature = `(types text[], excluded_queues text[], only_queues text[], lim integer)
  RETURNS TABLE (id uuid, version integer) LANGUAGE plpgsql VOLATILE
  SET enable_sort = off SET enable_bitmapscan = off SET enable_seqscan = off`;
  return `
CREATE FUNCTION ${schema}.conveyor_claimable_lock${signature}
AS $fn$ BEGIN${body}
  FOR UPDATE OF c SKIP LOCKED;
END $fn$;

CREATE FUNCTION ${schema}.conveyor_claimable_peek${signature}
AS $fn$ BEGIN${body};
END $fn$;
`;
}
