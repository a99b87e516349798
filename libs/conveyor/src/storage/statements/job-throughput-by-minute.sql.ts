import { SqlTables, Statement } from './statement';

/**
 * Jobs finished per queue and minute over the last `minutes` minutes (the current, partial minute
 * included): COMPLETED ones, and the ones that went DEAD. Both come from `finished_at`, and each branch's
 * filter is the predicate of a partial index, so the history is never scanned: COMPLETED rows are a
 * range scan of `conveyor_jobs_completed_finished (finished_at)`; DEAD rows are read through
 * `conveyor_jobs_attention (status, id)`, which holds only jobs that need attention (an operator
 * retries or purges DEAD jobs, so there are few). `now()` comes back too, so the caller buckets against
 * the database's clock rather than its own.
 */
export function jobThroughputByMinute(t: SqlTables, minutes: number): Statement {
  return {
    text: `
WITH since AS (SELECT date_trunc('minute', now()) - ($1::int - 1) * interval '1 minute' AS at)
SELECT f.queue, date_trunc('minute', f.finished_at) AS minute,
       (count(*) FILTER (WHERE f.status = 'COMPLETED'))::int AS completed,
       (count(*) FILTER (WHERE f.status = 'DEAD'))::int AS failed,
       (SELECT at FROM since) AS since, now() AS now
FROM (
  SELECT queue, status, finished_at FROM ${t.jobs}
  WHERE status = 'COMPLETED' AND finished_at >= (SELECT at FROM since)
  UNION ALL
  SELECT queue, status, finished_at FROM ${t.jobs}
  WHERE status = 'DEAD' AND finished_at >= (SELECT at FROM since)
) f
GROUP BY f.queue, date_trunc('minute', f.finished_at)`,
    values: [minutes],
  };
}
