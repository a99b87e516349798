/**
 * DDL of the two functions that found claimable jobs (migration 0002; the text must never change).
 *
 * Why they existed: the claim must walk the partial claim index in (priority, run_at) order and stop after
 * `lim` rows. PostgreSQL picks that plan only when its statistics say many rows are claimable; right after a
 * burst of inserts (before autovacuum re-analyses the table) it believes there are a handful, and instead
 * bitmap-scans every claimable row and sorts them — 9 ms at 5,000 queued jobs, seconds at a million.
 * A function may carry its own planner settings, so these two forbid the sort, bitmap and sequential paths
 * for their one query. The claim statements now run the same query inline on the worker connection, which
 * carries those settings for its whole session (see WorkerConnection): calling the function cost ~0.3 ms
 * per claim (saving and restoring three settings, a PL/pgSQL frame, a tuplestore), a quarter of a claim.
 * The functions stay for instances of an earlier version during a rolling upgrade. Their query is the claim's
 * as it was then (`claimableSelect` has changed since), written out here with no shared constant in it, so
 * the DDL stays as applied.
 */
export function claimableFunctionsDdl(schema: string, jobs: string, queues: string): string {
  const body = `
  RETURN QUERY SELECT c.id, c.version FROM ${jobs} c
  WHERE c.status IN ('SCHEDULED','PENDING','RETRYING') AND c.run_at <= now()
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
