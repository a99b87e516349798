/** One parameterised statement, as pg takes it. */
export interface BenchStatement {
  text: string;
  values: unknown[];
}

/**
 * `rows` jobs in one statement. Pending: due now, as enqueue would leave them. Finished: 90 % COMPLETED,
 * 10 % DEAD, an hour ago — well inside the default 7-day retention, so the leader's retention cleaner leaves
 * them alone and the drain measures the claim path alone against a big table.
 */
export function conveyorInsertRows(jobsTable: string, rows: number, state: 'pending' | 'finished'): BenchStatement {
  if (state === 'pending') {
    return {
      text: `
INSERT INTO ${jobsTable} (queue, type, payload, status, run_at)
SELECT 'default', 'BENCH_NOOP', '{}'::jsonb, 'PENDING', now() - interval '1 minute'
FROM generate_series(1, $1::int)`,
      values: [rows],
    };
  }
  return {
    text: `
INSERT INTO ${jobsTable} (queue, type, payload, status, run_at, attempts, created_at, updated_at, started_at, finished_at)
SELECT 'default', 'BENCH_NOOP', '{}'::jsonb,
       CASE WHEN g % 10 = 0 THEN 'DEAD' ELSE 'COMPLETED' END,
       now() - interval '2 hours', 1,
       now() - interval '2 hours', now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour'
FROM generate_series(1, $1::int) AS g`,
    values: [rows],
  };
}

/** Rows of the table, how many COMPLETED, and how many still claimable or RUNNING. */
export function conveyorCounts(jobsTable: string): BenchStatement {
  return {
    text: `
SELECT count(*)::int AS total,
       (count(*) FILTER (WHERE status = 'COMPLETED'))::int AS done,
       (count(*) FILTER (WHERE status IN ('SCHEDULED','PENDING','RETRYING','RUNNING')))::int AS open
FROM ${jobsTable}`,
    values: [],
  };
}

/**
 * A live-watch lease held for an hour by an instance that is not in the case (`bench-watcher`), as a dashboard's
 * instance holds one while a browser follows live events: every instance then announces its changes.
 */
export function conveyorHoldLiveWatch(schema: string): BenchStatement {
  return {
    text: `
INSERT INTO "${schema}".conveyor_live_watch (holder, expires_at) VALUES ('bench-watcher', now() + interval '1 hour')
ON CONFLICT (holder) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
    values: [],
  };
}
