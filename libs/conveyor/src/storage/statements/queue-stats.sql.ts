import { CLAIMABLE_SQL, SqlTables, Statement } from './statement';

/**
 * Per queue and status: the count, and for jobs due now the oldest run_at ("age of oldest ready job");
 * queues known only from the queues table (paused, no jobs) appear with a NULL status.
 */
export function queueStats(t: SqlTables): Statement {
  return {
    text: `
SELECT coalesce(s.queue, q.name) AS queue, s.status, coalesce(s.count, 0) AS count, s.oldest_ready,
       coalesce(s.ready, 0) AS ready, coalesce(q.paused, false) AS paused, now() AS now
FROM (
  SELECT j.queue, j.status, count(*)::int AS count,
         min(j.run_at) FILTER (WHERE j.status IN ${CLAIMABLE_SQL} AND j.run_at <= now()) AS oldest_ready,
         (count(*) FILTER (WHERE j.status IN ${CLAIMABLE_SQL} AND j.run_at <= now()))::int AS ready
  FROM ${t.jobs} j
  GROUP BY j.queue, j.status
) s
FULL OUTER JOIN ${t.queues} q ON q.name = s.queue`,
    values: [],
  };
}
